import sys,re,datetime,json
f=sys.argv[1]
samples=[]
for line in open(f+'.samples'):
    p=line.split()
    if len(p)==9:
        samples.append((float(p[0]),)+tuple(int(x) for x in p[1:]))
err=open(f+'.err').read()
day=datetime.datetime.utcnow().date()
def ts(s):
    h,m,sec=s.split(':'); return datetime.datetime(day.year,day.month,day.day,int(h),int(m),0,tzinfo=datetime.timezone.utc).timestamp()+float(sec)
marks={}
for line in err.splitlines():
    m=re.match(r'\s+(\d\d:\d\d:[\d.]+) (.*)',line)
    if m: marks.setdefault(m.group(2).split(':')[0].split(' ...')[0].strip(),[]).append(ts(m.group(1)))
cpu=[]
try:
    for line in open(f+'.cpu'):
        p=line.split()
        if len(p)==3: cpu.append((float(p[0]),int(p[1]),int(p[2])))
except OSError: pass
def cat(t):
    best=None
    for s in cpu:
        if s[0]<=t: best=s
    return best
def at(t):
    best=None
    for s in samples:
        if s[0]<=t: best=s
    return best
def delta(a,b,label,orders):
    sa,sb=at(a),at(b)
    if not sa or not sb: return
    d=[sb[i]-sa[i] for i in range(1,5)]
    ca,cb=cat(a),cat(b)
    cpus = f" cpu ms/order pg={(cb[1]-ca[1])*10/orders:.2f} jvm={(cb[2]-ca[2])*10/orders:.2f}" if ca and cb else ""
    once_b = f"{sb[6]/max(1,sb[5]):.1f}" ; c_b=f"{sb[8]/max(1,sb[7]):.1f}"
    print(f"   {label:5} {b-a:5.1f}s commits/order={d[0]/orders:.2f} walsyncs/order={d[1]/orders:.2f} walrec/order={d[2]/orders:.1f} walKB/order={d[3]/orders/1024:.2f} markers/batch once={once_b}{cpus}")
lines=err.splitlines()
try:
    P0=marks['ceiling P'][0]; P1=marks['ceiling P'][1]
    C0=marks['ceiling C'][0]; C1=marks['ceiling C'][1]
    O0=marks['Once end to end'][0]; O1=marks['once end to end'][0]
    n=json.load(open(f+'.json'))['events']
    delta(P0,P1,'P',n); delta(C0,C1,'C',n); delta(O0,O1,'Once',n)
    j=json.load(open(f+'.json')); D=marks['done'][0]
    sa,sb=at(O1),at(D)
    print(f"   paced markers/batch={(sb[6]-sa[6])/max(1,sb[5]-sa[5]):.1f}", end='')
    delta(O1,D,'paced',j['paced_events'])
except Exception as e:
    print('  phases?',e, list(marks))
