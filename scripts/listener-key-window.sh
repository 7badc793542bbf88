#!/bin/bash
# scripts/listener-key-window.sh BINARY [N]  (root; strace, python3): start the authbgpd BINARY
# with N (default 100) TCP-MD5 peers (198.51.100.x, unreachable) in a fresh network namespace
# under strace, stop it once started, and print for each BGP listener how many distinct keys
# (TCP_MD5SIG_EXT setsockopts on its descriptor or a duplicate of it) were set before its listen()
# and first set after, and the window from listen() to the last key first set after it (0: every
# key was on the socket before it listened). Issue 45 item 3 measured with it: 130-500 ms at 100
# peers before GoBGP patch 0035's listener hook, 0 after.
set -e
bin=$1; n=${2:-100}; ns=lkw$$
d=$(mktemp -d /tmp/listener-key-window.XXXX)
{
	printf '[global]\nasn = 65001\nrouter-id = "192.0.2.1"\nlisten-addresses = ["0.0.0.0", "::"]\n'
	for i in $(seq 1 "$n"); do
		printf '[[peers]]\naddress = "198.51.100.%d"\nasn = 65002\npassword-env = "K45_KEY"\n' "$i"
	done
} > $d/c.toml
ip netns add $ns; trap "ip netns del $ns" EXIT
ip -n $ns link set lo up
K45_KEY=secret-k45 ip netns exec $ns strace -f -ttt -qq -e trace=socket,listen,setsockopt,close,fcntl,dup,dup2,dup3 -o $d/trace $bin -f $d/c.toml --log-level info > $d/log 2>&1 &
pid=$!
for i in $(seq 1 100); do grep -q "authbgpd started" $d/log && break; sleep 0.2; done
sleep 1
kill -TERM $(pgrep -P $pid | head -1) 2>/dev/null || kill -TERM $pid; wait $pid || true
python3 - $d/trace <<'PY'
import re,sys
ev=[]
for line in open(sys.argv[1]):
    m=re.match(r'(?:\[pid\s+\d+\]\s+)?(\d+)\s+([\d.]+)\s+(\w+)\((\d+|AF_\w+)(.*)',line)
    if not m: continue
    pid,t,call,a0,rest=m.groups(); t=float(t)
    ev.append((t,call,a0,rest,line))
ev.sort()
# socket() returns fd: track the current life of each fd
life={}  # fd -> dict(keys_before, keys_after, listen)
out=[]
for t,call,a0,rest,line in ev:
    if call=='socket':
        r=re.search(r'=\s*(\d+)',rest)
        if r: life[r.group(1)]={'before':0,'after':[], 'listen':None,'fam':a0+rest.split(',')[0],'seen':set()}
    elif call=='setsockopt' and 'TCP_MD5SIG' in rest and a0 in life:
        l=life[a0]
        kid=rest.split('"')[1][:60] if '"' in rest else rest  # the key's sockaddr (and prefix length, ifindex)
        if kid in l['seen']: continue  # the same key again (the reconciler re-sets it): not a new key
        l['seen'].add(kid)
        if l['listen'] is None: l['before']+=1
        else: l['after'].append(t)
    elif call=='listen' and a0 in life:
        life[a0]['listen']=t; out.append((a0,life[a0]))
    elif (call=='fcntl' and 'F_DUPFD' in rest) or call in ('dup','dup2','dup3'):
        r=re.search(r'=\s*(\d+)',rest)
        if r and a0 in life: life[r.group(1)]=life[a0]
    elif call=='close' and a0 in life:
        del life[a0]
out=[(fd,l) for fd,l in out if l['before'] or l['after']]  # the BGP listeners: the ones keyed
for fd,l in out:
    w=(max(l['after'])-l['listen']) if l['after'] else 0.0
    print(f"listener fd {fd} ({l['fam']}): {l['before']} distinct keys set before listen(), {len(l['after'])} first set after; window listen()->last key = {w*1000:.1f} ms")
PY
echo "config, log and trace: $d"
