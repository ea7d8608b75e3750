"""Tests of the shipped Prometheus alert rules and Grafana dashboard (src/ssdlab/monitoring/),
checked by Prometheus's own promtool and, end to end, by a real node_exporter and Prometheus."""
