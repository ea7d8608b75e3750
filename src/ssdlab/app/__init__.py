"""The application: what ssdlab's commands do, below the command line that asks for it."""
