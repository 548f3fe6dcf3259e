"""Seeds for the `yaml` fuzz target (fuzz/README.md): each seed is 4 consecutive entries of
ops.yaml with their backward chain and op_compat entries, NUL-separated in the order the target
reads (ops, backward, op_compat, sparse_ops); every fifth also has two sparse_ops.yaml entries.

Usage: python3 scripts/fuzz_yaml_seeds.py OUT_DIR   (reads $PIR_PADDLE_YAML, default ../shared/paddle-yaml)
"""
import re, os, sys
Y=os.environ.get('PIR_PADDLE_YAML', '../shared/paddle-yaml')
out=sys.argv[1]
def entries(path):
    text=open(path).read()
    parts=re.split(r'(?m)^(?=- )', text)
    return [p for p in parts if p.startswith('- ')]
def name(e):
    m=re.match(r'- (?:backward_)?op\s*:\s*([A-Za-z0-9_]+)', e)
    return m.group(1) if m else None
ops=entries(f'{Y}/ops.yaml'); bw=entries(f'{Y}/backward.yaml'); cp=entries(f'{Y}/op_compat.yaml')
bwd={name(e):e for e in bw}; cpd={name(e):e for e in cp}
sp=entries(f'{Y}/sparse_ops.yaml')
n=0
for i in range(0,len(ops),4):
    group=ops[i:i+4]
    b=[];c=[]
    for e in group:
        nm=name(e)
        if nm in cpd: c.append(cpd[nm])
        m=re.search(r'backward\s*:\s*([A-Za-z0-9_]+)', e)
        while m and m.group(1) in bwd:
            be=bwd[m.group(1)]; b.append(be)
            if m.group(1) in cpd: c.append(cpd[m.group(1)])
            m=re.search(r'backward\s*:\s*([A-Za-z0-9_]+)', be)
            if len(b)>6: break
    s=''.join(group)+'\0'+''.join(b)+'\0'+''.join(c)
    if i//4 % 5 == 0 and sp:
        s+='\0'+''.join(sp[(i//20)%len(sp):(i//20)%len(sp)+2])
    open(os.path.join(out,f'seed{n:03}.yaml'),'w').write(s); n+=1
print(n)
