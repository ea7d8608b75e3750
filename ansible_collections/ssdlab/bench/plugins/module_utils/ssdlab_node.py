# -*- coding: utf-8 -*-
# MIT License (see the ssdlab repository)
"""What every module of ssdlab.bench shares: how the node's ssdlab is started (without a
shell, through AnsibleModule.run_command with a list), how its JSON answer is read, and how
its one-line error becomes the module's failure.

The modules never import ssdlab: they run on the node's Python and call the node's own
`ssdlab node ... --json`, which makes every safety check where the device is."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import shlex

# the common options of every module
SSDLAB_ARGS = dict(
    ssdlab=dict(type="raw", default="ssdlab"),
    db=dict(type="path"),
)

# options ssdlab_run sets itself (as `ssdlab fleet run` does); given in `args` they would fight it
SET_BY_MODULE = ("--db", "--destroy-data", "--start-at", "--start-sent-at", "--json")


def ssdlab_words(module):
    """The node's ssdlab command as a list: a list as given, a string split as a shell would
    (without running one): 'ssdlab', '/opt/ssdlab/bin/ssdlab', 'python3 -m ssdlab'."""
    given = module.params["ssdlab"]
    if isinstance(given, (list, tuple)):
        words = [str(word) for word in given]
    else:
        try:
            words = shlex.split(str(given))
        except ValueError as error:
            module.fail_json(msg="ssdlab: %s is not a command line: %s" % (given, error))
    if not words:
        module.fail_json(msg="ssdlab: give the node's ssdlab command, e.g. ssdlab")
    return words


def ssdlab_found(module, words):
    """Whether the node can start the ssdlab command `words` (its first word a path, or a
    name on the node's PATH)."""
    program = words[0]
    if "/" in program:
        return os.path.isfile(program) and os.access(program, os.X_OK)
    return module.get_bin_path(program) is not None


def store_words(module):
    """--db DB when the node's store is given (else ssdlab's default store on the node)."""
    db = module.params.get("db")
    return ["--db", db] if db else []


def last_line(text):
    """ssdlab's one-line error: the last line it wrote that says something."""
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[-1] if lines else ""


def run_ssdlab(module, words, data=None, **result):
    """Run `<ssdlab> WORDS` on the node; (rc, stdout, stderr). Fails the module, with ssdlab's
    one-line error, when the command cannot be started or exits non-zero."""
    argv = ssdlab_words(module) + list(words)
    if not ssdlab_found(module, argv):
        module.fail_json(msg="%s is not found on the node" % argv[0], cmd=argv, **result)
    rc, out, err = module.run_command(argv, data=data, binary_data=True, check_rc=False)
    if rc != 0:
        said = last_line(err) or "exit status %d" % rc
        module.fail_json(msg=said, rc=rc, cmd=argv, stderr=err, **result)
    return rc, out, err


def run_json(module, words, data=None, **result):
    """Run `<ssdlab> WORDS` and read its answer: one JSON document on stdout."""
    argv = ssdlab_words(module) + list(words)
    _rc, out, _err = run_ssdlab(module, words, data=data, **result)
    try:
        return json.loads(out)
    except ValueError:
        module.fail_json(
            msg="%s printed no JSON (is it ssdlab?)" % " ".join(argv[:3]),
            cmd=argv,
            stdout=out,
            **result
        )


def set_by_module(args):
    """The words of `args` that name an option the module sets itself, in any spelling
    argparse takes (in full, as --option=value, or cut short)."""
    found = []
    for word in args:
        name = word.split("=", 1)[0]
        if len(name) >= 3 and name.startswith("--"):
            if any(option.startswith(name) for option in SET_BY_MODULE):
                found.append(word)
    return found
