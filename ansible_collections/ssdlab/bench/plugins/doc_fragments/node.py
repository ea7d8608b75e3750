"""The options every module of ssdlab.bench shares (module_utils/ssdlab_node.SSDLAB_ARGS),
documented once: how ssdlab starts on the node and which store it uses."""


class ModuleDocFragment:
    DOCUMENTATION = r"""
options:
  ssdlab:
    description:
      - How ssdlab starts on the node, as a list of words or a command line split as a shell
        would (no shell runs), e.g. C(ssdlab), C(/opt/ssdlab/bin/ssdlab) or
        C(python3 -m ssdlab). The inventory variable C(ssdlab_command) of ssdlab fleet.
    type: raw
    default: ssdlab
  db:
    description:
      - The node's own store (C(ssdlab_db)); default ssdlab's default store on the node.
    type: path
"""
