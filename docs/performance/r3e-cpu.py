import os,sys,time
pm=int(open(sys.argv[2] if len(sys.argv)>2 else '/tmp/perf-pg/data/postmaster.pid').readline())
out=open(sys.argv[1],'w')
def stat(pid):
    try:
        s=open(f'/proc/{pid}/stat').read()
        cmd=open(f'/proc/{pid}/cmdline','rb').read()
    except OSError:
        return None
    r=s[s.rindex(')')+2:].split()
    # r[0]=state (field 3); ppid field4 -> r[1]; utime field14 -> r[11]; stime r[12]; cutime r[13]; cstime r[14]
    return int(r[1]),int(r[11]),int(r[12]),int(r[13]),int(r[14]),cmd
while True:
    pg=0; jv=0
    for d in os.listdir('/proc'):
        if not d.isdigit(): continue
        st=stat(int(d))
        if not st: continue
        ppid,u,s_,cu,cs,cmd=st
        if int(d)==pm: pg+=u+s_+cu+cs
        elif ppid==pm: pg+=u+s_
        elif b'dev.once.app.Main' in cmd and b'bench' in cmd: jv+=u+s_
    out.write(f"{time.time()} {pg} {jv}\n"); out.flush()
    time.sleep(0.2)
