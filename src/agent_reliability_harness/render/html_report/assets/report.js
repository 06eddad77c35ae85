// ARH HTML report: draws the page from the JSON blocks of this file; fetches nothing.
// Everything taken from a trace is untrusted: it reaches the page only through
// textContent and element properties, never as markup and never as a URL.
(() => {
  'use strict';
  const D = document;
  const INDEX = JSON.parse(D.getElementById('arh-index').textContent);
  const ROWS = INDEX.traces;
  const COMPARE = INDEX.kind === 'compare';
  const F = {};
  INDEX.step_fields.forEach((name, i) => { F[name] = i; });
  const SEVERITIES = INDEX.severities;
  const SHOW_CHARS = 2000;
  const LIST_PAGE = 300;
  const STEP_PAGE = 200;
  const SEARCH_SLICE = 400;

  // ---- small DOM helpers -------------------------------------------------------------
  function el(tag, cls, text) {
    const node = D.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function add(parent, ...children) {
    for (const child of children) if (child) parent.appendChild(child);
    return parent;
  }
  function badge(text, kind) { return el('span', 'badge ' + kind, text); }
  const SEVERITY_CLASS = { error: 'error', warning: 'warning', info: 'info' };
  const CHANGE_CLASS = { new: 'new', fixed: 'fixed', unchanged: 'unchanged' };
  function sevClass(severity) { return SEVERITY_CLASS[severity] || 'plain'; }
  function num(value) { return value === null || value === undefined ? null : String(value); }
  function fmtScore(value) { return typeof value === 'number' ? value.toFixed(2) : '-'; }
  function plural(n, word) { return n.toLocaleString('en-US') + ' ' + word + (n === 1 ? '' : 's'); }

  // Integers beyond 2^53 keep their digits (JSON.parse would round them).
  class Raw { constructor(text) { this.text = text; } }
  function reviver(key, value, context) {
    if (typeof value === 'number' && context && typeof context.source === 'string' &&
        Number.isInteger(value) && !Number.isSafeInteger(value)) return new Raw(context.source);
    return value;
  }
  function pretty(value, pad) {
    pad = pad || '';
    if (value instanceof Raw) return value.text;
    if (value === null || typeof value !== 'object') return JSON.stringify(value);
    const inner = pad + '  ';
    if (Array.isArray(value)) {
      if (!value.length) return '[]';
      return '[\n' + value.map((v) => inner + pretty(v, inner)).join(',\n') + '\n' + pad + ']';
    }
    const keys = Object.keys(value);
    if (!keys.length) return '{}';
    return '{\n' + keys.map((k) => inner + JSON.stringify(k) + ': ' + pretty(value[k], inner))
      .join(',\n') + '\n' + pad + '}';
  }
  function shown(value) { return typeof value === 'string' ? value : pretty(value); }

  // Long text: the first SHOW_CHARS characters, its full length, and a button for the rest.
  function longText(text, cls) {
    const wrap = el('div', cls || '');
    const pre = el('pre');
    add(wrap, pre);
    if (text.length <= SHOW_CHARS) { pre.textContent = text; return wrap; }
    pre.textContent = text.slice(0, SHOW_CHARS) + '\u2026';
    const line = el('div', 'cut');
    const what = el('span', '', 'showing ' + SHOW_CHARS.toLocaleString('en-US') + ' of ' +
      text.length.toLocaleString('en-US') + ' characters');
    const more = el('button', 'linkish', 'show all');
    more.type = 'button';
    more.addEventListener('click', () => {
      pre.textContent = text;
      what.textContent = text.length.toLocaleString('en-US') + ' characters';
      more.remove();
    });
    add(wrap, add(line, what, more));
    return wrap;
  }
  function field(label, value, cls) {
    const box = el('div', 'field ' + (cls || ''));
    add(box, el('div', 'label', label), longText(shown(value)));
    return box;
  }

  // ---- state -------------------------------------------------------------------------
  const state = {
    q: '', verdict: '', sev: new Set(), rule: null, cat: null, policy: null, task: null,
    change: '', sort: 'input', list: [], shown: 0, pos: -1, open: -1, deep: null, deepHits: null,
  };
  const ui = {};

  function changeOf(row) {
    if (!COMPARE) return '';
    if (row.status === 'added') return 'added';
    if (row.status === 'removed') return 'removed';
    if (row.transition) return row.transition;
    if (row.changes[0]) return 'new';
    if (row.changes[1]) return 'fixed';
    return 'unchanged';
  }
  const CHANGES = [
    ['', 'any change'], ['pass_to_fail', 'pass \u2192 fail'], ['fail_to_pass', 'fail \u2192 pass'],
    ['new', 'new findings'], ['fixed', 'fixed findings'], ['added', 'added traces'],
    ['removed', 'removed traces'], ['unchanged', 'unchanged'],
  ];

  const ROW_CHANGE = { pass_to_fail: 'pass \u2192 fail', fail_to_pass: 'fail \u2192 pass',
    new: 'new findings', fixed: 'fixed findings', added: 'added', removed: 'removed',
    unchanged: 'unchanged' };

  function quickText(row) {
    return [row.id, row.agent, row.workflow, row.task, row.policy, row.source,
      row.rules.join(' ')].filter((v) => v !== null && v !== undefined).join('\n').toLowerCase();
  }
  const QUICK = ROWS.map(quickText);

  function passesFilters(row) {
    if (state.verdict === 'pass' && !row.pass) return false;
    if (state.verdict === 'fail' && row.pass) return false;
    if (state.sev.size && !SEVERITIES.some((s, i) => state.sev.has(s) && row.sev[i] > 0)) return false;
    if (state.rule !== null && !row.rules.includes(state.rule)) return false;
    if (state.cat !== null && !row.cats.includes(state.cat)) return false;
    if (state.policy !== null && row.policy !== state.policy) return false;
    if (state.task !== null && row.task !== state.task.value) return false;
    if (state.change) {
      const change = changeOf(row);
      if (state.change === 'new' ? !row.changes[0] : state.change === 'fixed' ? !row.changes[1]
        : change !== state.change) return false;
    }
    return true;
  }
  function matchesQuery(i) {
    if (!state.q) return true;
    if (QUICK[i].includes(state.q)) return true;
    return state.deepHits !== null && state.deepHits.has(i);
  }
  const SORTS = {
    input: null,
    score: (a, b) => ROWS[a].score - ROWS[b].score || a - b,
    findings: (a, b) => (ROWS[b].sev[0] - ROWS[a].sev[0]) || (ROWS[b].sev[1] - ROWS[a].sev[1]) ||
      (ROWS[b].sev[2] - ROWS[a].sev[2]) || a - b,
    id: (a, b) => (ROWS[a].id < ROWS[b].id ? -1 : ROWS[a].id > ROWS[b].id ? 1 : a - b),
  };

  function applyFilters(keepOpen) {
    const list = [];
    for (let i = 0; i < ROWS.length; i++) if (passesFilters(ROWS[i]) && matchesQuery(i)) list.push(i);
    if (SORTS[state.sort]) list.sort(SORTS[state.sort]);
    state.list = list;
    state.pos = keepOpen && state.open >= 0 ? list.indexOf(state.open) : (list.length ? 0 : -1);
    state.shown = 0;
    ui.list.textContent = '';
    renderMore(Math.max(LIST_PAGE, state.pos + 1));
    updateCount();
    markSelected();
  }
  function updateCount() {
    let text = plural(state.list.length, 'trace') + ' of ' + ROWS.length.toLocaleString('en-US');
    if (state.deep) text += ' \u2014 searching trace contents\u2026 ' + state.deep.progress + '%';
    ui.count.textContent = text;
  }

  // ---- the trace list ----------------------------------------------------------------
  function rowButton(i) {
    const row = ROWS[i];
    const button = el('button', 'row');
    button.type = 'button';
    button.id = 'row-' + i;
    button.dataset.index = String(i);
    const head = el('div');
    add(head, badge(row.pass ? 'PASS' : 'FAIL', row.pass ? 'pass' : 'fail'), D.createTextNode(' '),
      el('span', 'rid', row.id));
    const meta = el('div', 'meta');
    const bits = ['score ' + fmtScore(row.score), row.agent + '/' + row.workflow];
    if (row.task !== null) bits.push('task ' + row.task);
    meta.textContent = bits.join(' \u00b7 ') + ' ';
    SEVERITIES.forEach((s, k) => {
      if (row.sev[k]) add(meta, badge(row.sev[k] + ' ' + s, sevClass(s)), D.createTextNode(' '));
    });
    if (COMPARE) {
      const change = changeOf(row);
      add(meta, badge(ROW_CHANGE[change] || change, change === 'unchanged' ? 'unchanged' :
        change === 'fail_to_pass' || change === 'fixed' || change === 'removed' ? 'fixed' : 'new'));
    }
    add(button, head, meta);
    button.addEventListener('click', () => { select(state.list.indexOf(i)); openTrace(i); });
    return button;
  }
  function renderMore(upTo) {
    const end = Math.min(state.list.length, Math.max(upTo, state.shown + LIST_PAGE));
    const frag = D.createDocumentFragment();
    for (let k = state.shown; k < end; k++) add(frag, add(el('li'), rowButton(state.list[k])));
    ui.list.appendChild(frag);
    state.shown = end;
    ui.more.hidden = state.shown >= state.list.length;
    ui.more.textContent = 'show more (' + (state.list.length - state.shown).toLocaleString('en-US') +
      ' left)';
  }
  function markSelected() {
    for (const node of ui.list.querySelectorAll('.row.selected')) node.classList.remove('selected');
    if (state.pos < 0) return;
    const node = D.getElementById('row-' + state.list[state.pos]);
    if (node) node.classList.add('selected');
  }
  function select(pos, focus) {
    if (pos < 0 || pos >= state.list.length) return;
    if (pos >= state.shown) renderMore(pos + 1);
    state.pos = pos;
    markSelected();
    const node = D.getElementById('row-' + state.list[pos]);
    if (node) {
      node.scrollIntoView({ block: 'nearest' });
      if (focus) node.focus();
    }
  }

  // ---- content search: the escaped query against each trace's JSON block, in slices ----
  function escapeRe(text) { return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'); }
  function asEmbedded(text) {
    return JSON.stringify(text).slice(1, -1).replace(/[<>&\u2028\u2029]/g,
      (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
  }
  function startDeepSearch() {
    if (state.deep) state.deep.cancelled = true;
    state.deep = null;
    state.deepHits = null;
    if (!state.q) { D.body.dataset.searched = ''; return; }
    const job = { re: new RegExp(escapeRe(asEmbedded(state.q)), 'i'), next: 0, hits: new Set(),
      progress: 0, cancelled: false };
    state.deep = job;
    const step = () => {
      if (job.cancelled) return;
      const end = Math.min(ROWS.length, job.next + SEARCH_SLICE);
      for (let i = job.next; i < end; i++) {
        if (QUICK[i].includes(state.q)) continue;
        const block = D.getElementById('d' + i);
        if (block && job.re.test(block.textContent)) job.hits.add(i);
      }
      job.next = end;
      job.progress = Math.floor((100 * end) / Math.max(1, ROWS.length));
      if (end < ROWS.length) { updateCount(); setTimeout(step, 0); return; }
      state.deep = null;
      state.deepHits = job.hits;
      applyFilters(true);
      D.body.dataset.searched = state.q;
    };
    setTimeout(step, 0);
  }

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
    if (f.change) add(head, D.createTextNode(' '), badge(f.change, CHANGE_CLASS[f.change] || 'plain'));
    if (extra) add(head, D.createTextNode(' '), extra);
    add(card, head, el('div', 'msg', f.message));
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
  function stepNumbers(step) {
    const parts = [];
    const lat = num(step[F.latency_ms]), cost = num(step[F.cost_usd]);
    const tin = num(step[F.input_tokens]), tout = num(step[F.output_tokens]);
    if (lat !== null) parts.push(lat + ' ms');
    if (cost !== null) parts.push(cost + ' USD');
    if (tin !== null || tout !== null) parts.push((tin || '0') + ' in / ' + (tout || '0') + ' out tokens');
    return parts.join(' \u00b7 ');
  }
  function stepCard(step, n, findings) {
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
    const ctx = { timeline, steps, pins, done: 0 };
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
  function renderSteps(ctx, count) {
    if (ctx.moreButton) ctx.moreButton.remove();
    const end = Math.min(ctx.steps.length, ctx.done + count);
    const frag = D.createDocumentFragment();
    for (let n = ctx.done; n < end; n++) add(frag, stepCard(ctx.steps[n], n, ctx.pins.byStep.get(n) || []));
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

  // ---- page skeleton, summary and filters --------------------------------------------
  function card(value, label, onClick) {
    const node = el(onClick ? 'button' : 'div', 'card');
    if (onClick) { node.type = 'button'; node.addEventListener('click', onClick); }
    add(node, el('b', '', value), el('span', '', label));
    return node;
  }
  function table(section) {
    const wrap = el('div');
    add(wrap, el('h3', '', section.title));
    if (section.note) add(wrap, el('p', 'note', section.note));
    const t = el('table', 'data');
    const head = el('tr');
    for (const c of section.columns) add(head, el('th', '', c));
    add(t, add(el('thead'), head));
    const body = el('tbody');
    const filter = section.filter || null;
    for (const r of section.rows) {
      const tr = el('tr');
      r.forEach((cell, k) => {
        const td = el('td', typeof cell === 'number' ? 'num' : '');
        if (filter && k === filter[0] && filter[1] === 'task') {
          const b = el('button', 'linkish', cell === null ? '(none)' : cell);
          b.type = 'button';
          b.addEventListener('click', () => setSelect(ui.task, cell));
          add(td, b);
        } else td.textContent = cell === null ? '' : String(cell);
        add(tr, td);
      });
      add(body, tr);
    }
    add(wrap, add(t, body));
    return wrap;
  }
  function renderSummary(box) {
    const s = INDEX.summary;
    const cards = el('div', 'cards');
    if (COMPARE) {
      const gate = INDEX.gate;
      add(box, el('div', 'gate', 'Gate (' + gate.mode + '): ' + (gate.passed ? 'passed' : 'failed')));
      if (gate.reasons.length) {
        const list = el('ul');
        for (const r of gate.reasons) add(list, el('li', '', r.message));
        add(box, list);
      }
      const b = INDEX.baseline, c = INDEX.candidate;
      add(cards, card(b.passed_traces + '/' + b.total_traces, 'baseline passed'),
        card(c.passed_traces + '/' + c.total_traces, 'candidate passed'),
        card(fmtScore(b.average_score) + ' \u2192 ' + fmtScore(c.average_score), 'average score'),
        card(s.pass_to_fail, 'pass \u2192 fail', () => setSelect(ui.change, 'pass_to_fail')),
        card(s.fail_to_pass, 'fail \u2192 pass', () => setSelect(ui.change, 'fail_to_pass')),
        card(SEVERITIES.reduce((n, k) => n + s.new_findings[k], 0), 'new findings',
          () => setSelect(ui.change, 'new')),
        card(SEVERITIES.reduce((n, k) => n + s.resolved_findings[k], 0), 'fixed findings',
          () => setSelect(ui.change, 'fixed')),
        card(s.unchanged_findings, 'unchanged findings'),
        card(s.added_traces, 'added traces', () => setSelect(ui.change, 'added')),
        card(s.removed_traces, 'removed traces', () => setSelect(ui.change, 'removed')));
      add(box, cards);
    } else {
      add(cards, card(s.total_traces, 'traces'),
        card(s.passed_traces, 'passed', () => setSelect(ui.verdict, 'pass')),
        card(s.failed_traces, 'failed', () => setSelect(ui.verdict, 'fail')),
        card(INDEX.input_errors.length, 'unreadable inputs'),
        card(fmtScore(s.average_score), 'average score'));
      for (const k of SEVERITIES) {
        add(cards, card(s.findings_by_severity[k] || 0, k + ' findings', () => toggleSeverity(k, true)));
      }
      add(box, cards);
      const cats = Object.keys(s.findings_by_category).filter((k) => s.findings_by_category[k]);
      if (cats.length) {
        add(box, el('div', 'facts', 'findings by category: ' +
          cats.map((k) => k + ' ' + s.findings_by_category[k]).join(' \u00b7 ')));
      }
    }
    if (INDEX.input_errors.length) {
      const more = el('details');
      add(more, el('summary', '', plural(INDEX.input_errors.length, 'unreadable input')));
      const list = el('ul');
      for (const e of INDEX.input_errors) {
        const where = e.source_path + (e.line !== null ? ':' + e.line : e.index !== null ? ': [' + e.index + ']' : '');
        add(list, add(el('li'), el('span', 'mono', where), D.createTextNode(': ' + e.message)));
      }
      add(box, add(more, list));
    }
    for (const section of INDEX.sections) add(box, table(section));
  }

  function option(select, value, label) {
    const node = el('option', '', label);
    node.value = value;
    add(select, node);
  }
  // Choices are kept as values in JS; the <option> values are only their positions.
  function valueSelect(label, values, onChange) {
    const select = el('select');
    select.setAttribute('aria-label', label);
    option(select, '', 'any ' + label);
    values.forEach((v, k) => option(select, String(k), v === null ? '(none)' : v));
    select.values = values;
    select.addEventListener('change', () => {
      onChange(select.value === '' ? null : { value: values[Number(select.value)] });
      applyFilters(true);
    });
    return select;
  }
  function setSelect(select, value) {
    if (!select) return;
    const values = select.values;
    select.value = values ? String(values.indexOf(value)) : value;
    if (select.value === '-1') select.value = '';
    select.dispatchEvent(new Event('change'));
  }
  function toggleSeverity(key, only) {
    if (only) for (const box of ui.sevBoxes) box.checked = box.value === key;
    state.sev = new Set(ui.sevBoxes.filter((b) => b.checked).map((b) => b.value));
    applyFilters(true);
  }
  function distinct(pick) {
    const seen = new Set();
    for (const row of ROWS) for (const v of pick(row)) seen.add(v);
    return [...seen].sort((a, b) => (a === null ? -1 : b === null ? 1 : a < b ? -1 : a > b ? 1 : 0));
  }
  function renderFilters(box) {
    const q = el('input');
    q.type = 'search';
    q.placeholder = 'search traces (press /)';
    q.setAttribute('aria-label', 'search traces');
    let timer = 0;
    q.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        state.q = q.value.trim().toLowerCase();
        state.deepHits = null;
        applyFilters(true);
        startDeepSearch();
      }, 150);
    });
    ui.q = q;
    const verdict = el('select');
    verdict.setAttribute('aria-label', 'verdict');
    option(verdict, '', 'any verdict');
    option(verdict, 'fail', 'failed');
    option(verdict, 'pass', 'passed');
    verdict.addEventListener('change', () => { state.verdict = verdict.value; applyFilters(true); });
    ui.verdict = verdict;
    const sevs = el('span');
    ui.sevBoxes = SEVERITIES.map((s) => {
      const box = el('input');
      box.type = 'checkbox';
      box.value = s;
      box.addEventListener('change', () => toggleSeverity(s, false));
      add(sevs, add(el('label'), box, D.createTextNode(s)));
      return box;
    });
    ui.rule = valueSelect('rule', distinct((r) => r.rules), (v) => { state.rule = v && v.value; });
    ui.cat = valueSelect('category', distinct((r) => r.cats), (v) => { state.cat = v && v.value; });
    ui.policy = valueSelect('policy', distinct((r) => [r.policy]), (v) => { state.policy = v && v.value; });
    ui.task = valueSelect('task', distinct((r) => [r.task]), (v) => { state.task = v; });
    add(box, q, verdict, sevs, ui.rule, ui.cat, ui.policy, ui.task);
    if (COMPARE) {
      const change = el('select');
      change.setAttribute('aria-label', 'change');
      for (const [value, label] of CHANGES) option(change, value, label);
      change.addEventListener('change', () => { state.change = change.value; applyFilters(true); });
      ui.change = change;
      add(box, change);
    }
    const sort = el('select');
    sort.setAttribute('aria-label', 'order');
    for (const [value, label] of [['input', 'input order'], ['score', 'lowest score first'],
      ['findings', 'most findings first'], ['id', 'by trace id']]) option(sort, value, label);
    sort.addEventListener('change', () => { state.sort = sort.value; applyFilters(true); });
    ui.count = el('div', 'count');
    add(box, sort, ui.count);
  }

  function onKey(event) {
    const target = event.target;
    const typing = target instanceof HTMLInputElement && target.type !== 'checkbox' ||
      target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (typing) {
      if (event.key === 'Escape' || (event.key === 'Enter' && target === ui.q)) {
        target.blur();
        select(Math.max(0, state.pos), true);
        event.preventDefault();
      }
      return;
    }
    const inList = ui.list.contains(target) || target === D.body;
    if (event.key === '/') { ui.q.focus(); ui.q.select(); event.preventDefault(); }
    else if (event.key === 'j' || (inList && event.key === 'ArrowDown')) {
      select(state.pos + 1, true); event.preventDefault();
    } else if (event.key === 'k' || (inList && event.key === 'ArrowUp')) {
      select(Math.max(0, state.pos - 1), true); event.preventDefault();
    } else if (event.key === 'Enter' && target === D.body && state.pos >= 0) {
      openTrace(state.list[state.pos]); event.preventDefault();
    } else if (event.key === 'Escape') { select(Math.max(0, state.pos), true); }
  }

  function build() {
    const app = D.getElementById('app');
    const top = el('header', 'top');
    add(top, el('h1', '', COMPARE ? 'ARH comparison' : 'ARH report'),
      el('span', 'sub', 'policy ' + INDEX.policy_id), el('span', 'sub', 'arh ' + INDEX.tool_version));
    const summary = el('section', 'summary');
    summary.setAttribute('aria-label', 'summary');
    renderSummary(summary);
    const main = el('div', 'main');
    const pane = el('nav', 'pane-list');
    pane.setAttribute('aria-label', 'traces');
    const filters = el('div', 'filters');
    ui.list = el('ul', 'list');
    ui.more = el('button', 'more');
    ui.more.type = 'button';
    ui.more.addEventListener('click', () => renderMore(state.shown + LIST_PAGE));
    renderFilters(filters);
    add(pane, filters, ui.list, ui.more);
    ui.detail = el('main', 'pane-detail');
    ui.detail.tabIndex = -1;
    add(ui.detail, el('p', 'empty', ROWS.length ? 'Choose a trace on the left (Enter opens it).'
      : 'This run has no traces.'));
    add(main, pane, ui.detail);
    ui.main = main;
    const help = el('footer', 'help');
    add(help, D.createTextNode('Keys: '), el('kbd', '', 'j'), D.createTextNode(' / '), el('kbd', '', 'k'),
      D.createTextNode(' or arrows move through traces, '), el('kbd', '', 'Enter'),
      D.createTextNode(' opens, '), el('kbd', '', '/'), D.createTextNode(' searches (ids, names, '
        + 'rules, then trace contents), '), el('kbd', '', 'Esc'), D.createTextNode(' returns to the list.'));
    add(app, top, summary, main, help);
    D.addEventListener('keydown', onKey);
    applyFilters(false);
    const wanted = /^#t(\d+)$/.exec(location.hash);
    const first = wanted ? Number(wanted[1]) : -1;
    if (first >= 0 && first < ROWS.length) {
      select(state.list.indexOf(first));
      openTrace(first);
    }
    D.body.dataset.ready = '1';
  }
  build();
})();
