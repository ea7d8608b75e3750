"""The device tier's guest init: the first process of the guest, /init in the initramfs that
tests/devices/guest_image.py builds. Kept here as text (busybox runs it, in the guest only):
it loads the drivers, mounts the host's root filesystem read-only over 9p, gives the guest its
own /proc, /sys, /dev, /tmp and /run, and hands over to the agent (tests/devices/guest_agent.py),
run by the host's Python. The kernel passes ssdlab_python and ssdlab_agent from its command
line as environment variables.
"""

INIT_SCRIPT = """\
#!/bin/busybox sh
bb=/bin/busybox
$bb mount -t proc proc /proc
$bb mount -t sysfs sysfs /sys
$bb mount -t devtmpfs devtmpfs /dev
for module in $($bb cat /modules/order); do
    $bb insmod "/modules/$module" || echo "guest init: insmod $module failed"
done
if ! $bb mount -t 9p -o ro,trans=virtio,version=9p2000.L,cache=loose,msize=512000 \\
        hostroot /newroot; then
    echo "guest init: cannot mount the host's root filesystem"
    $bb poweroff -f
fi
for dir in proc sys dev; do
    $bb mount --move "/$dir" "/newroot/$dir"
done
$bb mount -t tmpfs -o mode=1777 tmpfs /newroot/tmp
$bb mount -t tmpfs -o mode=755 tmpfs /newroot/run
$bb mkdir -p /newroot/dev/shm
$bb mount -t tmpfs -o mode=1777 tmpfs /newroot/dev/shm
echo "guest init: starting the agent"
exec $bb switch_root /newroot "$ssdlab_python" "$ssdlab_agent"
"""
