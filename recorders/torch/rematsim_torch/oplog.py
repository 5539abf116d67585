"""oplog.py: the op-log writer (format: LOG-FORMAT.md in the shared specs)
and its shadow replay, the Python twin of recorders/logger/oplog.c.

Records are written one JSON object per line with sorted keys, exactly as
the C logger writes them, to a temporary file beside the log (NAME.tmp.PID.N)
that `close` renames into place; `abort` removes it. A CALL and the
MEMORY/ALIAS lines of its results, a CONSTANT and its MEMORY, are written by
one method each, so a log is never cut between them.

The shadow is a small model of the simulator's unbounded eager replay: a
map from handle name to tensor, each tensor on a storage, each storage
counting the handles of all its tensors. From the last START on, a CALL's
new results and a CONSTANT add their bytes while the op's inputs are still
held; a storage's bytes go when the last handle of any tensor on it goes;
constants are pinned and never go; a MUTATE makes one new storage as large
as each mutated argument's storage, then drops the old tensor's handle.
`peak_live_bytes` is therefore, by construction, the peak an unbounded
`rematsim replay` of the log reports (`peak_memory`; the tests check it to
the byte). `baseline_memory` counts the same way except that constants go
when their last handle goes, as the baseline replay (runtime V1, whose
banishing frees released constants) counts them: it is the `rematsim
replay` field of that name, from which budget ratios are taken. The two
differ when a constant loses all its handles, as a weight does when the
optimizer updates it in place (a MUTATE drops the old tensor's handle).
"""

import gzip
import itertools
import json
import os
import stat

VERSION = "0.1.0"  # of rematsim_torch
NAME_MAX = 63  # the C logger's limit on a name's length


class LogError(Exception):
    """A record that would break the format (a bug in the caller)."""


class OutputError(OSError):
    """PATH cannot be the log or its meta file (check_output's message)."""


def _name_max(folder):
    try:
        return os.pathconf(folder or ".", "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


_tmp_count = itertools.count()


def tmp_name(path):
    """PATH's temporary name, PATH.tmp.PID.N (N: this process's count, so
    that two names cut alike stay apart), its file name cut to fit the
    folder's NAME_MAX as rematsim's outfile.c does: a valid 250-byte name
    still gets one (issue 40, H16)."""
    folder, base = os.path.split(os.fsencode(os.fspath(path)))
    suffix = (".tmp.%d.%d" % (os.getpid(), next(_tmp_count))).encode()
    room = max(1, _name_max(folder) - len(suffix))
    return os.fsdecode(os.path.join(folder, base[:room] + suffix))


def check_output(path):
    """Why the log PATH or its meta file cannot be written, or None. Both
    are written under a temporary name and renamed into place, as
    rematsim's outputs are (sim/util/outfile.c): each must be a new or a
    regular file, not a folder, a device, a FIFO or /dev/stdout (renaming
    would replace it) nor a symbolic link (renaming would replace the link,
    not its target), and its folder must take a new file."""
    path = os.fspath(path)
    for p in (path, meta_path_for(path)):
        folder, base = os.path.split(os.fsencode(p))
        if len(base) > _name_max(folder):
            return ("%s: cannot create the log: its file name is %d bytes, more than the %d "
                    "this file system takes%s; give a shorter name"
                    % (p, len(base), _name_max(folder),
                       " (the meta file beside the log, NAME.meta.json)" if p != path else ""))
        try:
            lst = os.lstat(p)
        except FileNotFoundError:
            lst = None
        except OSError as e:
            return "%s: cannot create the log: %s" % (p, e.strerror or e)
        if lst is not None:
            if stat.S_ISLNK(lst.st_mode):
                return ("%s: is a symbolic link: the log and its meta file are written under "
                        "temporary names and renamed into place, which would replace the "
                        "link, not its target; give the file's own name" % p)
            if stat.S_ISDIR(lst.st_mode):
                return "%s: cannot write: is a folder" % p
            if not stat.S_ISREG(lst.st_mode):
                return ("%s: not a regular file: the log and its meta file are written under "
                        "temporary names and renamed into place, which would replace it" % p)
        probe = tmp_name(p)
        try:
            fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
        except OSError as e:
            return "%s: cannot create the log: %s" % (p, e.strerror or e)
        os.close(fd)
        os.unlink(probe)
    return None


class _Storage:
    __slots__ = ("nbytes", "handles", "pinned")

    def __init__(self, nbytes, pinned):
        self.nbytes = nbytes
        self.handles = 0
        self.pinned = pinned


class OpLog:
    """Writes one log. Names are given by `new_name` (x0, x1, ...)."""

    def __init__(self, path):
        self.path = os.fspath(path)
        self.tmp_path = tmp_name(self.path)
        why = check_output(self.path)
        if why:
            raise OutputError(why)
        raw = open(self.tmp_path, "xb")  # fails (OSError) when PATH can't be made
        if self.path.endswith(".gz"):
            # No name and no time in the gzip header: the same records give
            # the same bytes.
            self._raw = raw
            self._out = gzip.GzipFile(filename="", mode="wb", compresslevel=6,
                                      fileobj=raw, mtime=0)
        else:
            self._raw = None
            self._out = raw
        self._lines = []
        self._next_name = 0
        self.records = 0
        self.counts = dict.fromkeys(
            ("calls", "writes", "mutates", "constants", "copies", "copy_froms", "releases",
             "starts", "backwards", "modules", "module_exits"), 0)
        self._shadow_reset()

    # ---- the shadow replay ----

    def _shadow_reset(self):
        self._tensor_of = {}  # name -> tensor id
        self._storage_of = []  # tensor id -> _Storage
        self._names_of = []  # tensor id -> set of names mapped to it
        self.live_bytes = 0
        self.peak_live_bytes = 0
        # The same count with constants freed like any storage when their
        # last handle goes: the peak of the baseline replay (runtime V1,
        # unbounded), whose banishing frees released constants.
        self.live_unpinned = 0
        self.baseline_bytes = 0

    def _new_storage(self, nbytes, pinned=False):
        self.live_bytes += nbytes
        self.live_unpinned += nbytes
        return _Storage(nbytes, pinned)

    def _new_tensor(self, storage, name):
        t = len(self._storage_of)
        self._storage_of.append(storage)
        self._names_of.append({name})
        storage.handles += 1
        self._map(name, t)
        return t

    def _map(self, name, t):
        old = self._tensor_of.get(name)
        if old is not None:
            self._names_of[old].discard(name)
        self._tensor_of[name] = t
        self._names_of[t].add(name)

    def _note_peak(self):
        if self.live_bytes > self.peak_live_bytes:
            self.peak_live_bytes = self.live_bytes
        if self.live_unpinned > self.baseline_bytes:
            self.baseline_bytes = self.live_unpinned

    def _drop_handle(self, t):
        s = self._storage_of[t]
        if s.handles == 0:
            return
        s.handles -= 1
        if s.handles == 0:
            self.live_unpinned -= s.nbytes
            if not s.pinned:
                self.live_bytes -= s.nbytes

    def _lookup(self, name, what):
        t = self._tensor_of.get(name)
        if t is None:
            raise LogError("%s: '%s' is not defined" % (what, name))
        return t

    def is_defined(self, name):
        return name in self._tensor_of

    def tensor_id(self, name):
        """The shadow's tensor that NAME holds (an opaque number)."""
        return self._tensor_of[name]

    def same_tensor_names(self, name):
        """The other names that hold the tensor NAME holds, oldest first."""
        t = self._tensor_of[name]
        return sorted((n for n in self._names_of[t] if n != name), key=_name_order)

    # ---- output ----

    def new_name(self):
        n = "x%d" % self._next_name
        self._next_name += 1
        return n

    def _emit(self, line):
        self._lines.append(line)
        self.records += 1
        if len(self._lines) >= 4096:
            self._flush_lines()

    def _flush_lines(self):
        if self._lines:
            self._out.write(("\n".join(self._lines) + "\n").encode())
            self._lines = []

    # ---- records ----

    def annotate(self, what, module=None, kind=None):
        """START, BACKWARD, or a module's ENTER / EXIT: MODULE its name (as
        named_modules() gives it), KIND (ENTER only) its class name."""
        if what not in ("START", "BACKWARD", "ENTER", "EXIT"):
            raise LogError("unknown annotation %r" % what)
        if what in ("ENTER", "EXIT"):
            if not isinstance(module, str) or not module:
                raise LogError("%s needs a module name" % what)
            fields = ',"MODULE":%s' % json.dumps(module)
            if what == "ENTER" and kind:
                fields += ',"TYPE":%s' % json.dumps(kind)
            self.counts["modules" if what == "ENTER" else "module_exits"] += 1
            self._emit('{"ANNOTATION":"%s","INSTRUCTION":"ANNOTATE"%s}' % (what, fields))
            return
        if what == "START":
            self._shadow_reset()  # a replay skips everything before START
            self.counts["starts"] += 1
        else:
            self.counts["backwards"] += 1
        self._emit('{"ANNOTATION":"%s","INSTRUCTION":"ANNOTATE"}' % what)

    def constant(self, name, nbytes):
        _check_name(name)
        if name in self._tensor_of:
            raise LogError("CONSTANT '%s' is already defined" % name)
        self._new_tensor(self._new_storage(nbytes, pinned=True), name)
        self._note_peak()
        self._emit('{"INSTRUCTION":"CONSTANT","NAME":"%s"}' % name)
        self._emit('{"INSTRUCTION":"MEMORY","MEMORY":"%d","NAME":"%s"}' % (nbytes, name))
        self.counts["constants"] += 1

    def call(self, op, args, results, time_ns, writes=None, cost=None):
        """RESULTS: (name, nbytes, alias) each; alias -1 or an index into ARGS.
        WRITES: indices into ARGS of the arguments the op wrote in place (the
        CALL's WRITES field, which replays ignore: each written argument's
        new version is one of RESULTS, a view of it). COST: (flops, bytes)
        of the op, the CALL's FLOPS and BYTES fields (docs/llm.md), which
        replays ignore."""
        if not results:
            raise LogError("CALL %s with no result" % op)
        argt = [self._lookup(a, "CALL %s: argument" % op) for a in args]
        for name, nbytes, alias in results:
            _check_name(name)
            if name in self._tensor_of:
                raise LogError("CALL %s: result '%s' is already defined" % (op, name))
            if not -1 <= alias < len(args):
                raise LogError("CALL %s: result '%s' aliases no argument" % (op, name))
        # Outputs come into being while the inputs are still held.
        for name, nbytes, alias in results:
            st = self._new_storage(nbytes) if alias < 0 else self._storage_of[argt[alias]]
            self._new_tensor(st, name)
        if writes and any(not 0 <= i < len(args) for i in writes):
            raise LogError("CALL %s: a WRITES index is out of range" % op)
        self._note_peak()
        self._emit('{"ARGS":%s%s,"INSTRUCTION":"CALL","NAME":%s,"RESULT":%s,"TIME":"%d"%s}'
                   % (_names(args), ',"BYTES":"%d","FLOPS":"%d"' % (cost[1], cost[0])
                      if cost is not None else "",
                      json.dumps(op), _names([r[0] for r in results]),
                      time_ns, ',"WRITES":[%s]' % ",".join(str(i) for i in writes)
                      if writes else ""))
        for name, nbytes, alias in results:
            self._emit('{"INSTRUCTION":"MEMORY","MEMORY":"%d","NAME":"%s"}' % (nbytes, name))
            self._emit('{"ALIAS":"%d","INSTRUCTION":"ALIAS","NAME":"%s"}' % (alias, name))
        self.counts["calls"] += 1
        if writes:
            self.counts["writes"] += 1

    def mutate(self, op, args, mutated, time_ns):
        """MUTATED: indices into ARGS of the arguments the op overwrote."""
        if not mutated:
            raise LogError("MUTATE %s with nothing mutated" % op)
        argt = [self._lookup(a, "MUTATE %s: argument" % op) for a in args]
        if any(not 0 <= i < len(args) for i in mutated):
            raise LogError("MUTATE %s: index out of range" % op)
        if len({argt[i] for i in mutated}) != len(mutated):
            raise LogError("MUTATE %s changes one tensor twice" % op)
        # As the simulator does: one new storage per mutated argument, as
        # large as that argument's storage, then the old tensor's handle goes.
        news = [self._new_storage(self._storage_of[argt[i]].nbytes) for i in mutated]
        self._note_peak()
        for st, i in zip(news, mutated):
            self._new_tensor(st, args[i])
            self._drop_handle(argt[i])
        self._emit('{"ARGS":%s,"INSTRUCTION":"MUTATE","MUTATE":[%s],"NAME":%s,"TIME":"%d"}'
                   % (_names(args), ",".join(str(i) for i in mutated), json.dumps(op),
                      time_ns))
        self.counts["mutates"] += 1

    def copy(self, dst, src):
        _check_name(dst)
        if dst in self._tensor_of:
            raise LogError("COPY: '%s' is already defined" % dst)
        t = self._lookup(src, "COPY: source")
        self._storage_of[t].handles += 1
        self._map(dst, t)
        self._emit('{"DST":"%s","INSTRUCTION":"COPY","SRC":"%s"}' % (dst, src))
        self.counts["copies"] += 1

    def copy_from(self, dst, src):
        old = self._lookup(dst, "COPY_FROM: destination")
        t = self._lookup(src, "COPY_FROM: source")
        self._storage_of[t].handles += 1
        self._map(dst, t)
        self._drop_handle(old)
        self._emit('{"DST":"%s","INSTRUCTION":"COPY_FROM","SRC":"%s"}' % (dst, src))
        self.counts["copy_froms"] += 1

    def release(self, name):
        t = self._tensor_of.pop(name, None)
        if t is not None:
            self._names_of[t].discard(name)
            self._drop_handle(t)
        self._emit('{"INSTRUCTION":"RELEASE","NAME":"%s"}' % name)
        self.counts["releases"] += 1

    # ---- closing ----

    def close(self, meta):
        """Finish the log, write the meta file beside it (META plus records,
        calls, peak_live_bytes, time_unit), then move both into place."""
        self._flush_lines()
        self._out.close()
        if self._raw is not None:
            self._raw.close()
        meta = dict(meta)
        meta.update(records=self.records, calls=self.counts["calls"],
                    peak_live_bytes=self.peak_live_bytes,
                    baseline_memory=self.baseline_bytes, floor_memory=self.live_bytes,
                    time_unit="ns")
        meta_path = meta_path_for(self.path)
        meta_tmp = tmp_name(meta_path)
        try:
            with open(meta_tmp, "w") as f:
                f.write(json.dumps(meta, indent=2, sort_keys=True) + "\n")
            os.replace(self.tmp_path, self.path)
            os.replace(meta_tmp, meta_path)
        except BaseException:
            _unlink(meta_tmp)
            _unlink(self.tmp_path)
            raise
        return meta

    def abort(self):
        """Drop the log: nothing is left under its name or the temporary one."""
        try:
            self._out.close()
            if self._raw is not None:
                self._raw.close()
        except OSError:
            pass
        _unlink(self.tmp_path)


def meta_path_for(path):
    """The side file of log PATH: without .gz and .log, plus .meta.json."""
    p = os.fspath(path)
    if p.endswith(".gz"):
        p = p[:-3]
    if p.endswith(".log"):
        p = p[:-4]
    return p + ".meta.json"


def _names(names):
    return "[" + ",".join('"%s"' % n for n in names) + "]"


def _name_order(name):
    return int(name[1:]) if name[1:].isdigit() else -1


def _check_name(name):
    if not name or len(name) > NAME_MAX or '"' in name or "\\" in name:
        raise LogError("bad tensor name %r" % name)


def _unlink(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
