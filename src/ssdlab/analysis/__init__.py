"""Pure analysis of measurements: no processes, no database, no clock."""
