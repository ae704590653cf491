import { Session } from '../../source/store/session.ts';
import { contentStems } from '../../source/text/stems.ts';
import { splitSentences } from '../../source/text/sentences.ts';
import { activeVersion, findNode } from '../../source/summarize/graph.ts';
const held = (opt: string, known: Set<string>, t: number) => splitSentences(opt).filter((s) => { const st = [...new Set(contentStems(s))]; return st.length >= 3 && st.filter((x) => known.has(x)).length / st.length >= t; }).length;
for (const id of ['finc', 'fhier']) {
const { data } = await Session.snapshot('/tmp/s32/run/sessions', id);
const d = data as any;
for (const t of [0.6, 0.75, 0.9]) {
  const bins = [0,0,0,0,0].map(() => [0,0]); const none=[0,0];
  for (const q of d.memoryQuestions) {
    const known = new Set(contentStems(activeVersion(findNode(d.run, q.target.node)!)!.text));
    const sh = q.options.map((o: any) => held(o.text, known, t));
    const b0 = Math.max(...sh); const pick = b0 > 0 ? sh.indexOf(b0) : sh.length;
    const c = pick === q.answer ? 1 : 0;
    const b = q.demand === null ? none : bins[Math.min(4, Math.floor(q.demand.fraction * 5))]!;
    b[0]! += c; b[1]! += 1;
  }
  console.log(id, t, bins.map(([c,n]) => `${Math.round(100*c!/Math.max(1,n!))}%/${n}`).join(' '), 'none', `${Math.round(100*none[0]!/none[1]!)}%`);
}}
