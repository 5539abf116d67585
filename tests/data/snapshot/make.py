#!/usr/bin/env python3
"""make.py: writes the hand-made pickles of tests/cli-snapshot.sh and the
seeds of tests/fuzz/corpus/pickle (run from this folder; the outputs are
committed). Only pickle.dumps of plain values, and hand-written opcodes for
the pickles that must be refused; nothing here loads a pickle."""
import pickle, struct

MiB = 1 << 20
S = 0x7f0000000000          # a large segment held before the trace
T = S + 64 * MiB            # a small segment the trace allocates

def frame(f, line, name):
    return {'filename': f, 'line': line, 'name': name}

def entry(action, addr, size, line):
    return {'action': action, 'addr': addr, 'size': size, 'stream': 0,
            'time_us': 1000 + line, 'frames': [frame('??', 0, 'torch::unwind::unwind()'),
                                              frame('train.py', line, 'step')]}

trace = [
    entry('alloc', S + 4 * MiB, 3 * MiB, 10),        # best fit in the free 16 MiB after A
    entry('segment_alloc', T, 2 * MiB, 11),
    entry('alloc', T, 1000, 11),                     # a small request: new 2 MiB segment
    entry('free_requested', S + 4 * MiB, 3 * MiB, 12),
    entry('free_completed', S + 4 * MiB, 3 * MiB, 12),
    entry('alloc', S + 4 * MiB, 3 * MiB + 100, 13),  # back where it was
]
def block(addr, size, req, state, line=0):
    return {'address': addr, 'size': size, 'requested_size': req, 'state': state,
            'frames': [frame('model.py', line, 'forward')] if line else []}
segments = [
    {'device': 0, 'address': S, 'total_size': 20 * MiB, 'stream': 0, 'segment_type': 'large',
     'allocated_size': 0, 'active_size': 0, 'requested_size': 0, 'is_expandable': False,
     'blocks': [block(S, 4 * MiB, 4 * MiB, 'active_allocated', 7),
                block(S + 4 * MiB, 3 * MiB + 512, 3 * MiB + 100, 'active_allocated', 13),
                block(S + 7 * MiB + 512, 13 * MiB - 512, 0, 'inactive')]},
    {'device': 0, 'address': T, 'total_size': 2 * MiB, 'stream': 0, 'segment_type': 'small',
     'allocated_size': 0, 'active_size': 0, 'requested_size': 0, 'is_expandable': False,
     'blocks': [block(T, 1024, 1000, 'active_allocated', 11), block(T + 1024, 2 * MiB - 1024, 0, 'inactive')]},
]
snap = {'segments': segments, 'device_traces': [trace],
        'allocator_settings': {'max_split_size': -1, 'garbage_collection_threshold': 0.0,
                               'expandable_segments': False,
                               'roundup_power2_divisions': {str(1 << i): 0 for i in range(16)}}}

def write(name, data):
    with open(name, 'wb') as f:
        f.write(data)

write('tiny.pickle', pickle.dumps(snap, protocol=4))
write('tiny-p2.pickle', pickle.dumps(snap, protocol=2))
# a free of an address no alloc made and no start segment holds
bad = dict(snap, device_traces=[trace + [entry('free_completed', 0x1234000, 4096, 20)]])
write('unknown-free.pickle', pickle.dumps(bad, protocol=4))
write('not-snapshot.pickle', pickle.dumps({'hello': [1, 2, 3]}, protocol=4))
data = pickle.dumps(snap, protocol=4)
write('truncated.pickle', data[:len(data) // 2])
# os.system('touch PWNED') as a pickle would run it: GLOBAL then REDUCE
cmd = b'touch PWNED'
write('os-system.pickle', b'\x80\x02cos\nsystem\nX' + struct.pack('<I', len(cmd)) + cmd + b'\x85R.')
# the same with STACK_GLOBAL (protocol 4)
def su(s):
    return b'\x8c' + bytes([len(s)]) + s
write('stack-global.pickle', b'\x80\x04' + su(b'os') + su(b'system') + b'\x93' + su(cmd) + b'\x85R.')
# a list appended into itself (a cycle): refused
write('cycle.pickle', b'\x80\x04]\x94h\x00a.')
# the trace's segment_alloc names an address inside a segment already held:
# the model must not place a segment there (a disagreement, not a crash)
ov = dict(snap, device_traces=[[entry('segment_alloc', S + MiB, 2 * MiB, 30), entry('alloc', S + MiB, 1000, 30)]])
write('overlap.pickle', pickle.dumps(ov, protocol=4))
# an allocation larger than any device
write('huge.pickle', pickle.dumps(dict(snap, device_traces=[[entry('alloc', T, (1 << 62) + 1, 31)]]), protocol=4))
# recorded with expandable segments: one segment at E that grows by a
# 20 MiB mapping during the trace; its memory comes from the trace alone
E = 0x7f2000000000
xtrace = [entry('alloc', E + 4 * MiB, 3 * MiB, 40),
          entry('segment_map', E + 20 * MiB, 20 * MiB, 41),
          entry('alloc', E + 7 * MiB, 20 * MiB, 41),
          entry('free_requested', E + 4 * MiB, 3 * MiB, 42),
          entry('free_completed', E + 4 * MiB, 3 * MiB, 42)]
xseg = {'device': 0, 'address': E, 'total_size': 40 * MiB, 'stream': 0, 'segment_type': 'large',
        'allocated_size': 0, 'active_size': 0, 'requested_size': 0, 'is_expandable': True,
        'blocks': [block(E, 4 * MiB, 4 * MiB, 'active_allocated', 7),
                   block(E + 4 * MiB, 3 * MiB, 0, 'inactive'),
                   block(E + 7 * MiB, 20 * MiB, 20 * MiB, 'active_allocated', 41),
                   block(E + 27 * MiB, 13 * MiB, 0, 'inactive')]}
xsnap = {'segments': [xseg], 'device_traces': [xtrace],
         'allocator_settings': dict(snap['allocator_settings'], expandable_segments=True)}
write('expandable.pickle', pickle.dumps(xsnap, protocol=4))
