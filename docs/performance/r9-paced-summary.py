import json,glob,os,sys,statistics as st
d=sys.argv[1]
keys=['e2e_eps','ceiling_c_eps','ratio_c','producer_path_ratio','paced_p50_ms','paced_p99_ms','ceiling_c_paced_p50_ms','ceiling_c_paced_p99_ms','paced_p50_ratio','paced_p99_ratio','paced_commit_to_confirmed_p50_ms','ceiling_c_paced_commit_to_confirmed_p50_ms','paced_received_to_effect_p50_ms','duplicate_effects']
rows={}
for f in sorted(glob.glob(d+'/*.json')):
    b=os.path.basename(f)[:-5]; t,label,i=b.split('-')
    try: j=json.load(open(f))
    except Exception: continue
    rows.setdefault((t,label),[]).append((int(i),j))
for (t,label),runs in sorted(rows.items()):
    print(f'{t} {label} runs={len(runs)}')
    for k in keys:
        vals=[j.get(k) for _,j in sorted(runs, key=lambda x: x[0])]
        vals=[v for v in vals if v is not None]
        if vals: print(f'   {k:45s} median {st.median(vals):9.3f}   ' + ' / '.join(str(v) for v in vals))
