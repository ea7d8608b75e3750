-- ssdlab store, schema 6: every JSON object the store writes carries its own version
-- ("blob_version": run target, settings, plan and environment, device identity, step
-- metrics, health samples, findings; store/codec.py). No table changes: a blob written
-- before has no version and reads as version 1. The schema number marks the stores whose
-- blobs may carry versions, so that an ssdlab from before refuses them as newer instead of
-- failing on a field it does not know.
SELECT 1;
