# Hostile files for `memcity import|analyze`: a gzip bomb of zeros, the same behind an HPROF
# header, a binary trace whose site claims 50 M frames, a JSON Lines line of 30 M empty frames,
# and two gzipped V8 heap snapshots of 1.5 GB of nodes (the meta announcing 1 node, and a
# billion).
# Usage: python3 bombs.py DIR; then e.g. /usr/bin/time -f %M memcity import DIR/zeros.hprof.gz
import sys, zlib

def bomb(path, head, total):
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    out = [c.compress(head)]
    chunk = b'\0' * (1 << 24)
    left = total - len(head)
    while left > 0:
        n = min(left, len(chunk))
        out.append(c.compress(chunk[:n]))
        left -= n
    out.append(c.flush())
    open(path, 'wb').write(b''.join(out))

def v8_bomb(path, announced):
    meta = ('{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count",'
            '"trace_node_id","detachedness"],"node_types":[["hidden","array","string","object","code",'
            '"closure","regexp","number","native","synthetic"],"string","number","number","number",'
            '"number","number"],"edge_fields":["type","name_or_index","to_node"],"edge_types":[["context",'
            '"element","property","internal","hidden","shortcut","weak"],"string_or_number","node"]},'
            f'"node_count":{announced},"edge_count":0}},\n"nodes":[9,0,1,0,0,0,0')
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    out = [c.compress(meta.encode())]
    chunk = (',3,0,1,0,0,0,0' * 100_000).encode()
    for _ in range(1500):
        out.append(c.compress(chunk))
    out.append(c.compress(b'],"edges":[],"strings":[""]}'))
    out.append(c.flush())
    open(path, 'wb').write(b''.join(out))

def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7f) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)

d = sys.argv[1]
bomb(f'{d}/zeros.hprof.gz', b'', 3 << 30)
bomb(f'{d}/header.hprof.gz', b'JAVA PROFILE 1.0.2\0\0\0\0\x08', 3 << 30)
open(f'{d}/sites.mctrace', 'wb').write(b'MCTRACE\x01\x02' + varint(50_000_000) + b'\0' * 50_000_000)
with open(f'{d}/empty.jsonl', 'w') as f:
    f.write('{"e":"alloc","id":1,"type":"A","size":8,"site":[' + ','.join(['""'] * 30_000_000) + ']}\n')
v8_bomb(f'{d}/unannounced.heapsnapshot.gz', 1)
v8_bomb(f'{d}/announced.heapsnapshot.gz', 1_000_000_000)
