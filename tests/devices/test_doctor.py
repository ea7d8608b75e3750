"""`ssdlab doctor` and the real `python -m ssdlab` start inside the guest."""

from tests.devices.guest_client import Guest, ssdlab_env


def test_doctor_in_the_guest(guest: Guest) -> None:
    done = guest.run(guest.python_argv("doctor"), env=ssdlab_env())
    assert done.exit_code == 0, done.stderr
    for tool in ("fio", "smartctl", "nvme"):
        assert tool in done.stdout
