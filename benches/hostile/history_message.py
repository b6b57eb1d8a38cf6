# A history message of about N MiB: one snapshot, packages of 1,000 types each.
# Usage: python3 history_message.py N OUT.json
import sys
target = int(sys.argv[1]) << 20
parts = ['{"type":"history","snapshots":[{"time_ms":1,"tree":{"key":"Heap","name":"Heap","role":"Root","objects":1,"bytes":8,"children":[']
size = len(parts[0]); p = 0; first_pkg = True
while size < target:
    pk = f'{{"key":"Heap#p{p}","name":"p{p}","role":"Package","objects":1,"bytes":8,"children":['
    leaves = ','.join(f'{{"key":"Heap#p{p}#T{l}","name":"T{l}","role":"Type","objects":{l+1},"bytes":{(l+1)*24}}}' for l in range(1000))
    chunk = ('' if first_pkg else ',') + pk + leaves + ']}'
    first_pkg = False
    parts.append(chunk); size += len(chunk); p += 1
parts.append(']}}]}')
open(sys.argv[2], 'w').write(''.join(parts))
