"""ssdlab on many hosts: every node runs ssdlab itself over the user's OpenSSH and keeps its own
store; the central machine checks, starts, follows, collects and compares."""
