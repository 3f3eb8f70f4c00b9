#!/usr/bin/python3
"""dtb.py: read, edit and write a flattened device tree blob (a .dtb), with
the standard library only: boot tests give QEMU a machine's own tree with a
node added, a property set or one deleted (dtc is not installed).

  dtb.py show FILE                 the tree as source-like text
  dtb.py roundtrip FILE            read FILE and write it back: exit 0 when
                                   the bytes are the same
  dtb.py edit IN OUT [-f SCRIPT] [EDIT ...]
                                   apply each edit in order (those of SCRIPT,
                                   one a line, '#' lines and blank ones
                                   skipped, then the arguments), write OUT

An edit is one of:
  add-node PATH                    a new empty node (its parent must exist)
  set PATH PROP VALUE              set or add a property; VALUE as in a .dts:
                                   "text" (a string; "a", "b" a list of them),
                                   <1 0x2 &/soc/iommu@3010000> (32-bit cells; &PATH
                                   or &{PATH}: that node's phandle, given it
                                   one when it has none), [00 1f] (bytes),
                                   parts joined by commas; nothing: empty
  delete PATH PROP                 remove a property
  delete-node PATH                 remove a node and everything under it

Layout read and written: the Devicetree Specification v0.4, chapter 5 (a
40-byte big-endian header, the memory reservation block, the structure
block's tokens, the strings block). Written with the blocks in the order dtc
and libfdt lay them out (reservations, structure, strings), the bytes
between and after them kept as read (alignment; the free space of a tree
libfdt keeps open), the strings block as read and each property's offset
into it and the padding after each value (libfdt may leave old bytes
there): a tree read and written unedited comes out byte for byte as it went
in when its blocks were in that order (QEMU's dumpdtb's are).
Bad input (a broken blob, an edit naming nothing) is one line on stderr and
exit status 1, never a traceback.
"""
import struct
import sys

MAGIC = 0xD00DFEED
BEGIN_NODE, END_NODE, PROP, NOP, END = 1, 2, 3, 4, 9
HEADER = 40
NAME_CHARS = set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ,._+-@")
PROP_CHARS = set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ,._+-?#")


class DtbError(Exception):
    """What is wrong with the input, in words for the person who gave it."""


class Prop:
    def __init__(self, name, value, nameoff=None, pad=b""):
        self.name, self.value, self.nameoff = name, value, nameoff
        self.pad = pad  # the bytes after the value up to 4-byte alignment, as read (libfdt may leave old ones)


class Node:
    def __init__(self, name, pad=b""):
        self.name, self.pad = name, pad
        self.items = []  # ("prop", Prop), ("node", Node) or ("nop", None), in the blob's order

    def props(self):
        return [v for k, v in self.items if k == "prop"]

    def children(self):
        return [v for k, v in self.items if k == "node"]

    def prop(self, name):
        for p in self.props():
            if p.name == name:
                return p
        return None


class Tree:
    def __init__(self):
        self.version, self.last_comp, self.boot_cpuid = 17, 16, 0
        self.reservations = []
        self.root = None
        self.strings = b""
        # the bytes between the blocks and after the last (alignment, a
        # libfdt tree's free space), kept when the blocks were in the usual
        # order: reservations, structure, strings
        self.gaps = (b"", b"", b"", b"")


def be32(b, at):
    return struct.unpack_from(">I", b, at)[0]


def cstring(b, at, end, what):
    nul = b.find(b"\0", at, end)
    if nul < 0:
        raise DtbError("%s at %d runs off its block" % (what, at))
    try:
        return b[at:nul].decode("ascii"), nul
    except UnicodeDecodeError:
        raise DtbError("%s at %d is not ASCII" % (what, at))


def parse(b):
    """The tree in blob `b`, every offset and length checked against it."""
    if len(b) < HEADER:
        raise DtbError("%d bytes: shorter than the 40-byte header" % len(b))
    if be32(b, 0) != MAGIC:
        raise DtbError("magic 0x%08x, not 0xd00dfeed: not a flattened device tree" % be32(b, 0))
    total, off_st, off_str, off_rsv, version, last, cpuid, size_str, size_st = struct.unpack_from(">9I", b, 4)
    if total < HEADER or total > len(b):
        raise DtbError("totalsize %d outside the %d bytes given" % (total, len(b)))
    if version < 16 or last > 17:
        raise DtbError("version %d, compatible back to %d: only 16 and 17 are read" % (version, last))
    if version < 17:
        size_st = total - min(off_st, total)
    if off_st % 4 or off_st > total or size_st > total - off_st:
        raise DtbError("structure block at %d (%d bytes) outside the tree or unaligned" % (off_st, size_st))
    if off_str > total or size_str > total - off_str:
        raise DtbError("strings block at %d (%d bytes) outside the tree" % (off_str, size_str))
    if off_rsv % 8 or off_rsv > total:
        raise DtbError("memory reservation block at %d outside the tree or unaligned" % off_rsv)
    t = Tree()
    t.version, t.last_comp, t.boot_cpuid = version, last, cpuid
    at = off_rsv
    while True:
        if at + 16 > total:
            raise DtbError("the memory reservation block runs off the tree without its end")
        addr, size = struct.unpack_from(">QQ", b, at)
        at += 16
        if addr == 0 and size == 0:
            break
        t.reservations.append((addr, size))
    t.strings = b[off_str:off_str + size_str]
    end, at, stack = off_st + size_st, off_st, []
    while True:
        if at + 4 > end:
            raise DtbError("the structure block ends at %d without an END token" % (at - off_st))
        tok = be32(b, at)
        at += 4
        if tok == BEGIN_NODE:
            name, nul = cstring(b, at, end, "a node name")
            if len(stack) >= 64:
                raise DtbError("nodes nested deeper than 64")
            if not stack and t.root is not None:
                raise DtbError("a second root node at %d" % (at - 4 - off_st))
            node = Node(name, bytes(b[nul + 1:(nul + 1 + 3) & ~3]))
            if stack:
                stack[-1].items.append(("node", node))
            else:
                t.root = node
            stack.append(node)
            at = (nul + 1 + 3) & ~3
        elif tok == END_NODE:
            if not stack:
                raise DtbError("END_NODE at %d closes no node" % (at - 4 - off_st))
            stack.pop()
        elif tok == PROP:
            if not stack:
                raise DtbError("a property outside every node at %d" % (at - 4 - off_st))
            if at + 8 > end:
                raise DtbError("a property header runs off the structure block")
            plen, nameoff = struct.unpack_from(">II", b, at)
            at += 8
            if plen > end - at:
                raise DtbError("a property's %d bytes run off the structure block" % plen)
            if nameoff >= size_str:
                raise DtbError("a property name at strings offset %d is outside the block" % nameoff)
            name, _ = cstring(t.strings, nameoff, size_str, "a property name")
            padded = (at + plen + 3) & ~3
            if padded > end:
                raise DtbError("a property's padding runs off the structure block")
            stack[-1].items.append(("prop", Prop(name, bytes(b[at:at + plen]), nameoff, bytes(b[at + plen:padded]))))
            at = padded
        elif tok == NOP:
            if stack:
                stack[-1].items.append(("nop", None))
        elif tok == END:
            if stack:
                raise DtbError("END with %d nodes still open" % len(stack))
            break
        else:
            raise DtbError("unknown token 0x%x at %d" % (tok, at - 4 - off_st))
    if t.root is None:
        raise DtbError("no root node")
    rsv_end = off_rsv + 16 * (len(t.reservations) + 1)
    if HEADER <= off_rsv and rsv_end <= off_st and off_st + size_st <= off_str:
        t.gaps = (bytes(b[HEADER:off_rsv]), bytes(b[rsv_end:off_st]), bytes(b[off_st + size_st:off_str]),
                  bytes(b[off_str + size_str:total]))
    return t


def name_offset(t, name):
    """Where `name` is in the strings block, added at its end when it is
    not there (as libfdt does, a name may be the tail of a longer one)."""
    want = name.encode("ascii") + b"\0"
    at = t.strings.find(want)
    if at >= 0:
        return at
    at = len(t.strings)
    t.strings += want
    return at


def padded(st, pad):
    """Pads `st` to 4 bytes with the padding read (zeros for a new value)."""
    need = -len(st) % 4
    st.extend(pad if len(pad) == need else bytes(need))


def write(t):
    """The blob, laid out as a packed tree is."""
    st = bytearray()

    def emit(node):
        st.extend(struct.pack(">I", BEGIN_NODE))
        st.extend(node.name.encode("ascii") + b"\0")
        padded(st, node.pad)
        for kind, v in node.items:
            if kind == "prop":
                if v.nameoff is None or t.strings[v.nameoff:].split(b"\0", 1)[0] != v.name.encode("ascii"):
                    v.nameoff = name_offset(t, v.name)
                st.extend(struct.pack(">III", PROP, len(v.value), v.nameoff))
                st.extend(v.value)
                padded(st, v.pad)
            elif kind == "node":
                emit(v)
            else:
                st.extend(struct.pack(">I", NOP))
        st.extend(struct.pack(">I", END_NODE))

    emit(t.root)
    st.extend(struct.pack(">I", END))
    rsv = bytearray()
    for addr, size in t.reservations + [(0, 0)]:
        rsv.extend(struct.pack(">QQ", addr, size))
    g = t.gaps
    off_rsv = HEADER + len(g[0])
    off_st = off_rsv + len(rsv) + len(g[1])
    off_str = off_st + len(st) + len(g[2])
    total = off_str + len(t.strings) + len(g[3])
    head = struct.pack(">10I", MAGIC, total, off_st, off_str, off_rsv, max(t.version, 17), t.last_comp,
                       t.boot_cpuid, len(t.strings), len(st))
    return head + g[0] + bytes(rsv) + g[1] + bytes(st) + g[2] + t.strings + g[3]


# ---- paths and values ------------------------------------------------------

def find(t, path):
    """The node at `path`, or None. A component without a unit address
    names the first child whose name before '@' is it."""
    if not path.startswith("/"):
        raise DtbError("'%s' is not a path from the root (it starts with '/')" % path)
    node = t.root
    for comp in [c for c in path.split("/") if c]:
        kids = node.children()
        hit = [k for k in kids if k.name == comp]
        if not hit and "@" not in comp:
            hit = [k for k in kids if k.name.split("@", 1)[0] == comp]
        if not hit:
            return None
        node = hit[0]
    return node


def need(t, path):
    node = find(t, path)
    if node is None:
        raise DtbError("no node %s in the tree" % path)
    return node


def parent_of(t, path):
    parts = [c for c in path.split("/") if c]
    if not parts:
        raise DtbError("the root has no parent")
    return need(t, "/" + "/".join(parts[:-1])), parts[-1]


def phandles(node, out):
    for p in node.props():
        if p.name in ("phandle", "linux,phandle") and len(p.value) == 4:
            out.add(be32(p.value, 0))
    for k in node.children():
        phandles(k, out)
    return out


def phandle_of(t, path):
    """The phandle of the node at `path`, given one (the tree's highest plus
    one) when it has none."""
    node = need(t, path)
    p = node.prop("phandle") or node.prop("linux,phandle")
    if p is not None and len(p.value) == 4:
        return be32(p.value, 0)
    used = phandles(t.root, set())
    ph = max(used | {0}) + 1
    if ph >= 0xFFFFFFFF:
        raise DtbError("no phandle left to give %s" % path)
    set_prop(node, "phandle", struct.pack(">I", ph))
    return ph


def number(text):
    try:
        v = int(text, 0)
    except ValueError:
        raise DtbError("'%s' is not a number" % text)
    if v < 0 or v > 0xFFFFFFFF:
        raise DtbError("%s does not fit a 32-bit cell" % text)
    return v


def value(t, text):
    """The bytes a .dts-like VALUE stands for."""
    out, i, n = bytearray(), 0, len(text)
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i == n:
            return bytes(out)
        c = text[i]
        if c == '"':
            j, s = i + 1, bytearray()
            while j < n and text[j] != '"':
                if text[j] == "\\" and j + 1 < n:
                    j += 1
                    s.extend({"n": b"\n", "t": b"\t", "0": b"\0"}.get(text[j], text[j].encode("latin-1")))
                else:
                    s.extend(text[j].encode("latin-1", "replace"))
                j += 1
            if j == n:
                raise DtbError("a string in '%s' has no closing quote" % text)
            out.extend(bytes(s) + b"\0")
            i = j + 1
        elif c == "<":
            j = text.find(">", i)
            if j < 0:
                raise DtbError("cells in '%s' have no closing '>'" % text)
            for word in text[i + 1:j].split():
                if word.startswith("&"):
                    ref = word[1:]
                    if ref.startswith("{") and ref.endswith("}"):
                        ref = ref[1:-1]
                    out.extend(struct.pack(">I", phandle_of(t, ref)))
                else:
                    out.extend(struct.pack(">I", number(word)))
            i = j + 1
        elif c == "[":
            j = text.find("]", i)
            if j < 0:
                raise DtbError("bytes in '%s' have no closing ']'" % text)
            hexes = "".join(text[i + 1:j].split())
            if len(hexes) % 2:
                raise DtbError("bytes '%s' are not whole pairs of hex digits" % text[i:j + 1])
            try:
                out.extend(bytes.fromhex(hexes))
            except ValueError:
                raise DtbError("bytes '%s' are not hex digits" % text[i:j + 1])
            i = j + 1
        else:
            raise DtbError("'%s' is no value: \"text\", <cells> or [bytes], joined by commas" % text[i:])
        while i < n and text[i].isspace():
            i += 1
        if i < n:
            if text[i] != ",":
                raise DtbError("'%s': parts of a value are joined by commas" % text)
            i += 1


def set_prop(node, name, val):
    for k, v in node.items:
        if k == "prop" and v.name == name:
            v.value, v.pad = val, b""
            return
    # after the last property, before the first child
    at = len(node.items)
    for idx, (k, _) in enumerate(node.items):
        if k == "node":
            at = idx
            break
    node.items.insert(at, ("prop", Prop(name, val)))


# ---- edits -------------------------------------------------------------------

def apply(t, line):
    words = line.split(None, 3)
    op = words[0] if words else ""
    if op == "add-node" and len(words) == 2:
        parent, name = parent_of(t, words[1])
        if not set(name) <= NAME_CHARS or name.count("@") > 1 or name.startswith("@"):
            raise DtbError("'%s' is not a node name (letters, digits, ,._+- and one @unit-address)" % name)
        if any(k.name == name for k in parent.children()):
            raise DtbError("%s exists already" % words[1])
        parent.items.append(("node", Node(name)))
    elif op == "set" and len(words) >= 3:
        node = need(t, words[1])
        if not set(words[2]) <= PROP_CHARS:
            raise DtbError("'%s' is not a property name" % words[2])
        set_prop(node, words[2], value(t, words[3] if len(words) == 4 else ""))
    elif op == "delete" and len(words) == 3:
        node = need(t, words[1])
        p = node.prop(words[2])
        if p is None:
            raise DtbError("%s has no property %s" % (words[1], words[2]))
        node.items.remove(("prop", p))
    elif op == "delete-node" and len(words) == 2:
        parent, _ = parent_of(t, words[1])
        node = need(t, words[1])
        parent.items = [(k, v) for k, v in parent.items if v is not node]
    else:
        raise DtbError("'%s' is no edit: add-node PATH, set PATH PROP VALUE, delete PATH PROP or "
                       "delete-node PATH" % line)


# ---- show --------------------------------------------------------------------

def shown(v):
    if not v:
        return ""
    if v[-1] == 0 and all(32 <= c < 127 or c == 0 for c in v) and b"\0\0" not in v and v[0] != 0:
        return ", ".join('"%s"' % s.decode("ascii") for s in v[:-1].split(b"\0"))
    if len(v) % 4 == 0:
        return "<%s>" % " ".join("0x%x" % be32(v, i) for i in range(0, len(v), 4))
    return "[%s]" % " ".join("%02x" % c for c in v)


def show(t):
    lines = ["/dts-v1/;"]
    for addr, size in t.reservations:
        lines.append("/memreserve/ 0x%x 0x%x;" % (addr, size))

    def node(n, depth):
        pad = "\t" * depth
        lines.append("%s%s {" % (pad, n.name or "/"))
        for p in n.props():
            v = shown(p.value)
            lines.append("%s\t%s%s;" % (pad, p.name, " = " + v if v else ""))
        for k in n.children():
            node(k, depth + 1)
        lines.append("%s};" % pad)

    node(t.root, 0)
    return "\n".join(lines) + "\n"


# ---- command line ------------------------------------------------------------

def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise DtbError("%s: %s" % (path, e.strerror or e))


def main(argv):
    usage = "usage: dtb.py show FILE | roundtrip FILE | edit IN OUT [-f SCRIPT] [EDIT ...]"
    if len(argv) < 2 or argv[0] in ("-h", "--help"):
        print(usage, file=sys.stderr if argv[:1] not in (["-h"], ["--help"]) else sys.stdout)
        return 0 if argv[:1] in (["-h"], ["--help"]) else 2
    cmd = argv[0]
    if cmd == "show" and len(argv) == 2:
        sys.stdout.write(show(parse(read(argv[1]))))
        return 0
    if cmd == "roundtrip" and len(argv) == 2:
        b = read(argv[1])
        t = parse(b)
        total = be32(b, 4)
        out = write(t)
        if out == b[:total]:
            print("%s: %d bytes read and written back the same" % (argv[1], total))
            return 0
        at = next((i for i in range(min(len(out), total)) if out[i] != b[i]), min(len(out), total))
        print("%s: written back differs from byte %d (%d bytes read, %d written)" % (argv[1], at, total, len(out)))
        return 1
    if cmd == "edit" and len(argv) >= 3:
        src, dst, rest = argv[1], argv[2], argv[3:]
        edits = []
        while rest:
            if rest[0] == "-f" and len(rest) >= 2:
                try:
                    with open(rest[1], encoding="utf-8") as f:
                        text = f.read()
                except (OSError, UnicodeDecodeError) as e:
                    raise DtbError("%s: %s" % (rest[1], getattr(e, "strerror", None) or e))
                edits += [(rest[1], n + 1, l.strip()) for n, l in enumerate(text.splitlines())
                          if l.strip() and not l.lstrip().startswith("#")]
                rest = rest[2:]
            else:
                edits.append(("argument", len(edits) + 1, rest[0].strip()))
                rest = rest[1:]
        t = parse(read(src))
        for where, n, line in edits:
            try:
                apply(t, line)
            except DtbError as e:
                raise DtbError("%s %d: %s" % (where, n, e))
        out = write(t)
        try:
            with open(dst, "wb") as f:
                f.write(out)
        except OSError as e:
            raise DtbError("%s: %s" % (dst, e.strerror or e))
        print("%s: %d edits, %d bytes" % (dst, len(edits), len(out)))
        return 0
    print(usage, file=sys.stderr)
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except DtbError as e:
        print("dtb.py: %s" % e, file=sys.stderr)
        sys.exit(1)
    except (KeyboardInterrupt, BrokenPipeError):
        sys.exit(1)
    except Exception as e:  # a bug of this tool: still one line, never a traceback
        print("dtb.py: internal error: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        sys.exit(1)
