"""Each profile's verdicts and round checks, one module per profile: pure functions of a run's
plan, step results, target facts and fio outputs. What they return is stored as the run's
findings (store/findings.py); reports read those findings back."""
