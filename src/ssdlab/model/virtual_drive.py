"""The names a virtual drive (`ssdlab sim serve`) and its readers agree on: the files of its
mount, the extended attribute that marks its drive file, the format of its health file."""

DRIVE_NAME = "drive"  # the drive itself, a file of the drive's capacity
HEALTH_NAME = "health.json"  # its health log, rendered anew at every open
MARKER_XATTR = "user.ssdlab.virtual-drive"  # on the drive file: the health file's name
HEALTH_FORMAT = "ssdlab-virtual-drive-health"
