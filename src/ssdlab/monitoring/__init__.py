"""Files shipped for Prometheus and Grafana: the alert rules (`ssdlab-alerts.yml`) and the
dashboard (`ssdlab-dashboard.json`) over the metrics `ssdlab metrics` writes. Data only: read
them with `importlib.resources.files("ssdlab.monitoring")` (see docs/metrics.md)."""
