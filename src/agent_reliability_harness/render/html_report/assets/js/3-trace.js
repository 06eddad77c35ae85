// Part 3 of 4 (trace): one trace's view: facts, findings, the trajectory timeline.
  // ---- the trace view ----------------------------------------------------------------
  function block(i) {
    return JSON.parse(D.getElementById('d' + i).textContent, reviver);
  }
  function findingCard(f, extra) {
    const card = el('div', 'finding ' + sevClass(f.severity));
    const head = el('div');
    add(head, badge(f.severity, sevClass(f.severity)), D.createTextNode(' '));
    const rule = INDEX.rules[f.rule_id];
    if (rule && /^https:\/\//.test(rule.url)) {
      const link = el('a', 'mono', f.rule_id);
      link.href = rule.url;
      link.target = '_blank';
      link.rel = 'noopener noreferrer';
      add(head, link);
    } else {
      add(head, el('span', 'mono', f.rule_id === null ? '(no rule id)' : f.rule_id));
    }
    add(head, D.createTextNode(' \u00b7 ' + f.category + (rule ? ' \u00b7 ' + rule.title : '')));
    if (f.agent !== undefined) add(head, D.createTextNode(' \u00b7 agent '), el('span', 'mono agent', f.agent));
    if (f.change) add(head, D.createTextNode(' '), badge(f.change, CHANGE_CLASS[f.change] || 'plain'));
    if (extra) add(head, D.createTextNode(' '), extra);
    add(card, head, el('div', 'msg', f.message));
    if (f.source_step_id !== undefined) add(card, sourceLine(f));
    if (f.remediation) add(card, el('div', 'fix', 'Fix: ' + f.remediation));
    const hasExpected = f.expected !== undefined, hasObserved = f.observed !== undefined;
    if (hasExpected || hasObserved) {
      const dl = el('dl');
      if (hasExpected) add(dl, el('dt', '', 'expected'), add(el('dd'), longText(shown(f.expected))));
      if (hasObserved) add(dl, el('dt', '', 'observed'), add(el('dd'), longText(shown(f.observed))));
      add(card, dl);
    }
    return card;
  }
  // The step a flagged value came from (data flow), or the call a claim was checked
  // against (policy v1.3 claims): a link into the timeline when the trace is embedded
  // and the step is in it, else its id.
  const CHECKED_AGAINST = {'ARH-GRD-004': 1, 'ARH-GRD-005': 1};
  function sourceLine(f) {
    const line = el('div', 'fix source');
    add(line, D.createTextNode(CHECKED_AGAINST[f.rule_id] ? 'Checked against: ' : 'Value from: '));
    const n = f.source_step_index, ctx = ui.ctx;
    if (typeof n === 'number' && ctx && n < ctx.steps.length) {
      const go = el('button', 'linkish', 'step #' + (n + 1) + ' ' + f.source_step_id);
      go.type = 'button';
      go.addEventListener('click', () => goToStep(n));
      add(line, go);
    } else {
      add(line, el('span', 'mono', 'step ' + f.source_step_id));
    }
    return line;
  }
  function stepNumbers(step) {
    const parts = [];
    const lat = num(step[F.latency_ms]), cost = num(step[F.cost_usd]);
    const tin = num(step[F.input_tokens]), tout = num(step[F.output_tokens]);
    if (lat !== null) parts.push(lat + ' ms');
    if (cost !== null) parts.push(cost + ' USD');
    if (tin !== null || tout !== null) parts.push((tin || '0') + ' in / ' + (tout || '0') + ' out tokens');
    return parts.join(' \u00b7 ');
  }
  // `agent`: the agent shown on the step (a multi-agent trace), else null.
  function stepCard(step, n, findings, agent) {
    const tool = step[F.type] === 't';
    const failed = step[F.status] === 'error';
    const card = el('li', 'step ' + (tool ? 'tool' : 'model') + (failed ? ' has-error' : ''));
    card.id = 'step-' + n;
    card.tabIndex = -1;
    const head = el('div', 'step-head');
    add(head, el('span', 'num', '#' + (n + 1)), el('span', 'sid', step[F.step_id]),
      badge(tool ? 'tool call' : 'model response', 'plain'));
    if (tool) add(head, el('span', 'tool', step[F.tool_name] === undefined || step[F.tool_name] === null
      ? '(no tool name)' : step[F.tool_name]));
    if (agent !== null && agent !== undefined) add(head, el('span', 'agent', 'agent ' + agent));
    add(head, badge(failed ? 'error' : 'ok', failed ? 'fail' : 'pass'));
    if (step[F.requires_grounding]) add(head, badge('requires grounding', 'plain'));
    add(head, el('span', 'nums', stepNumbers(step)));
    add(card, head);
    for (const f of findings) add(card, findingCard(f));
    const has = (key) => step[F[key]] !== undefined && step[F[key]] !== null;
    if (has('arguments')) add(card, field('arguments', step[F.arguments]));
    if (has('text')) add(card, field(tool ? 'text' : 'response', step[F.text]));
    if (has('output')) add(card, field('output', step[F.output]));
    if (has('error')) add(card, field('error', step[F.error], 'err'));
    if (has('citations')) add(card, field('citations', step[F.citations]));
    if (has('metadata')) {
      const more = el('details', 'field');
      add(more, el('summary', 'label', 'metadata'), longText(pretty(step[F.metadata])));
      add(card, more);
    }
    return card;
  }
  function flash(node) {
    node.classList.add('flash');
    setTimeout(() => node.classList.remove('flash'), 1200);
  }

  function pinFindings(findings, steps) {
    const byStep = new Map(), top = [], hidden = [];
    const firstById = new Map();
    if (steps) steps.forEach((s, n) => { if (!firstById.has(s[F.step_id])) firstById.set(s[F.step_id], n); });
    for (const f of findings) {
      let n = f.step_index;
      if ((n === undefined || n === null) && f.step_id !== null && firstById.has(f.step_id)) n = firstById.get(f.step_id);
      if (n === undefined || n === null || !steps) { top.push(f); continue; }
      if (n >= steps.length) { hidden.push(f); continue; }
      if (!byStep.has(n)) byStep.set(n, []);
      byStep.get(n).push(f);
    }
    return { byStep, top, hidden };
  }

  function openTrace(i) {
    state.open = i;
    ui.ctx = null;
    const row = ROWS[i];
    const data = block(i);
    const trace = data.trace;
    const detail = data.report;
    const steps = trace ? trace.steps : null;
    const pins = pinFindings(detail.findings, steps);
    const view = ui.detail;
    view.textContent = '';
    const h2 = el('h2');
    add(h2, badge(row.pass ? 'PASS' : 'FAIL', row.pass ? 'pass' : 'fail'), D.createTextNode(' '),
      el('span', 'mono', row.id));
    h2.id = 'trace-title';
    add(view, h2);
    const facts = el('div', 'facts');
    const fact = (label, value) => {
      if (value === null || value === undefined) return;
      const item = el('span');
      add(item, D.createTextNode(label + ' '), el('b', '', value));
      add(facts, item);
    };
    fact('score', fmtScore(row.score));
    fact('policy', row.policy);
    fact('agent', row.agent);
    fact('workflow', row.workflow);
    fact('task', row.task);
    fact('latency', num(detail.total_latency_ms) === null ? null : detail.total_latency_ms + ' ms');
    fact('cost', num(detail.total_cost_usd) === null ? null : detail.total_cost_usd + ' USD');
    fact('tokens', num(detail.total_tokens));
    fact('citations', detail.citation_coverage === null ? null
      : Math.round(detail.citation_coverage * 100) + '%');
    fact('source', row.source);
    add(view, facts);
    if (COMPARE) add(view, compareFacts(row, data.compare));
    const scores = Object.keys(detail.category_scores);
    if (scores.length) {
      add(view, el('div', 'facts', 'category scores: ' +
        scores.map((k) => k + ' ' + fmtScore(detail.category_scores[k])).join(' \u00b7 ')));
    }
    if (trace && trace.outcome !== undefined) add(view, field('outcome (external grader)', trace.outcome));
    if (trace && trace.source !== undefined) add(view, field('trace source', trace.source));
    if (trace && trace.metadata !== undefined) {
      const more = el('details', 'field');
      add(more, el('summary', 'label', 'trace metadata'), longText(pretty(trace.metadata)));
      add(view, more);
    }
    if (COMPARE && data.compare.fixed.length) {
      add(view, el('h3', '', 'Fixed since the baseline (' + data.compare.fixed.length + ')'));
      for (const f of data.compare.fixed) add(view, findingCard(Object.assign({}, f, { change: 'fixed' }),
        f.step_id === null ? null : el('span', 'mono', 'step ' + f.step_id)));
    }
    renderFindingsHead(view, detail.findings.length, pins, steps);
    if (!trace) {
      add(view, el('p', 'note', COMPARE && row.status === 'removed'
        ? 'This trace is only in the baseline.'
        : 'This report was written without the traces themselves: findings only, no timeline.'));
      return finishOpen(i);
    }
    add(view, el('h3', '', 'Trajectory (' + plural(steps.length + (trace.steps_omitted || 0), 'step') + ')'));
    if (trace.strings_cut) add(view, el('p', 'note', plural(trace.strings_cut, 'long text') +
      ' of this trace were cut in this report (marked where cut); the trace file has them whole.'));
    const timeline = el('ol', 'timeline');
    add(view, timeline);
    for (const input of trace.inputs || []) {
      const card = el('li', 'step input');
      add(card, add(el('div', 'step-head'), badge('input', 'plain'), el('span', 'tool', input[0])),
        longText(input[1]));
      add(timeline, card);
    }
    const ctx = { timeline, steps, pins, done: 0, agent: row.agent, ...nesting(steps) };
    ui.ctx = ctx;
    renderSteps(ctx, STEP_PAGE);
    if (trace.steps_omitted) add(view, el('p', 'note', plural(trace.steps_omitted, 'more step') +
      ' not embedded in this report (over its size limit).'));
    finishOpen(i);
  }
  function finishOpen(i) {
    try { history.replaceState(null, '', '#t' + i); } catch (e) { /* file: URLs may refuse */ }
    ui.detail.scrollTop = 0;
    window.scrollTo({ top: Math.min(window.scrollY, ui.main.offsetTop) });
    D.body.dataset.open = String(i);
  }
  // Trace v1.2: whether any step names its agent or parent (then every step shows its
  // agent), and each step's parent: the first EARLIER step with its parent_step_id.
  function nesting(steps) {
    const firstById = new Map(), parent = [];
    let multi = false;
    steps.forEach((s, n) => {
      const pid = s[F.parent_step_id], own = s[F.agent];
      if ((own !== undefined && own !== null) || (pid !== undefined && pid !== null)) multi = true;
      const p = pid === undefined || pid === null ? undefined : firstById.get(pid);
      parent.push(p === undefined ? -1 : p);
      if (!firstById.has(s[F.step_id])) firstById.set(s[F.step_id], n);
    });
    return { multi, parent, depth: [], holder: [], kids: [], cards: [] };
  }
  const MAX_NEST = 8;
  // The list step n's card goes in: its parent's child list (made on first use), or,
  // past MAX_NEST levels, the list its parent is in; null: the top of the timeline.
  function holderOf(ctx, n) {
    const p = ctx.parent[n];
    if (p < 0) { ctx.depth[n] = 0; return null; }
    if (ctx.depth[p] >= MAX_NEST) { ctx.depth[n] = ctx.depth[p]; return ctx.holder[p]; }
    ctx.depth[n] = ctx.depth[p] + 1;
    if (!ctx.kids[p]) {
      ctx.kids[p] = el('ol', 'timeline children');
      add(ctx.cards[p], ctx.kids[p]);
    }
    return ctx.kids[p];
  }
  function renderSteps(ctx, count) {
    if (ctx.moreButton) ctx.moreButton.remove();
    const end = Math.min(ctx.steps.length, ctx.done + count);
    const frag = D.createDocumentFragment();
    for (let n = ctx.done; n < end; n++) {
      const step = ctx.steps[n], own = step[F.agent];
      const agent = !ctx.multi ? null : own === undefined || own === null ? ctx.agent : own;
      // (a compare page's row may lack the trace's agent: such a step shows none)
      const card = stepCard(step, n, ctx.pins.byStep.get(n) || [], agent);
      if (!ctx.multi) { add(frag, card); continue; }
      ctx.cards[n] = card;
      ctx.holder[n] = holderOf(ctx, n);
      add(ctx.holder[n] || frag, card);
    }
    ctx.timeline.appendChild(frag);
    ctx.done = end;
    if (end < ctx.steps.length) {
      const more = el('button', 'more', 'show ' + Math.min(STEP_PAGE, ctx.steps.length - end) +
        ' more steps (' + (ctx.steps.length - end) + ' left)');
      more.type = 'button';
      more.addEventListener('click', () => renderSteps(ctx, STEP_PAGE));
      ctx.timeline.after(more);
      ctx.moreButton = more;
    }
  }
  function goToStep(n) {
    const ctx = ui.ctx;
    if (ctx && n >= ctx.done) renderSteps(ctx, n + 1 - ctx.done);
    const node = D.getElementById('step-' + n);
    if (!node) return;
    node.scrollIntoView({ block: 'start' });
    node.focus({ preventScroll: true });
    flash(node);
  }
  function renderFindingsHead(view, total, pins, steps) {
    add(view, el('h3', '', total ? 'Findings (' + total + ')' : 'No findings'));
    for (const f of pins.top) add(view, findingCard(f, f.step_id === null ? badge('trace', 'plain')
      : el('span', 'mono', 'step ' + f.step_id)));
    if (pins.hidden.length) {
      add(view, el('p', 'note', 'On steps past the embedded part of the trace:'));
      for (const f of pins.hidden) add(view, findingCard(f, el('span', 'mono', 'step ' + f.step_id)));
    }
    if (!pins.byStep.size) return;
    const jumps = el('ul', 'jumps');
    const order = [...pins.byStep.keys()].sort((a, b) => a - b);
    for (const n of order) {
      for (const f of pins.byStep.get(n)) {
        const item = el('li');
        const go = el('button', 'linkish', 'step #' + (n + 1) + ' ' + steps[n][F.step_id]);
        go.type = 'button';
        go.addEventListener('click', () => goToStep(n));
        add(item, badge(f.severity, sevClass(f.severity)), D.createTextNode(' '), go,
          D.createTextNode(' ' + (f.rule_id || '') + ': ' + f.message));
        add(jumps, item);
      }
    }
    add(view, jumps);
  }
  function compareFacts(row, cmp) {
    const facts = el('div', 'facts');
    const side = (label, s) => {
      const item = el('span');
      add(item, D.createTextNode(label + ' '), el('b', '', s === null ? 'absent'
        : (s.passed ? 'pass' : 'fail') + ', ' + fmtScore(s.score) + ', ' + plural(s.findings, 'finding')));
      add(facts, item);
    };
    side('baseline', cmp.baseline);
    side('candidate', cmp.candidate);
    if (row.delta !== null) add(facts, el('span', '', 'score change ' + (row.delta > 0 ? '+' : '') +
      row.delta.toFixed(2)));
    add(facts, el('span', '', row.changes[0] + ' new, ' + row.changes[1] + ' fixed, ' +
      row.changes[2] + ' unchanged'));
    return facts;
  }

