// Part 2 of 4 (list): filter state, the trace list and the content search.
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

