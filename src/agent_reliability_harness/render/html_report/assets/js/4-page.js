// Part 4 of 4 (page): the skeleton, summary, filters, keys and start-up.
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
  // What the page lacks (made from reports alone), and the run's policy warnings.
  function renderNotices(box) {
    if (INDEX.note) add(box, el('p', 'banner', INDEX.note));
    const warnings = INDEX.policy_warnings || [];
    if (!warnings.length) return;
    const wrap = el('div', 'warnings');
    wrap.setAttribute('role', 'note');
    add(wrap, el('b', '', plural(warnings.length, 'policy warning')));
    const list = el('ul');
    for (const w of warnings) {
      const item = el('li');
      if (w.source) add(item, el('span', 'mono', w.source), D.createTextNode(': '));
      add(item, D.createTextNode('policy '), el('span', 'mono', w.path || '(whole policy)'),
        D.createTextNode(': ' + w.message));
      add(list, item);
    }
    add(box, add(wrap, list));
  }
  function renderSummary(box) {
    const s = INDEX.summary;
    const cards = el('div', 'cards');
    renderNotices(box);
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
      el('span', 'sub', INDEX.policies ? 'policies ' + INDEX.policies.join(', ')
        : 'policy ' + INDEX.policy_id), el('span', 'sub', 'arh ' + INDEX.tool_version));
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
