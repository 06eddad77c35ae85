// ARH HTML report, part 1 of 4 (base): constants and DOM helpers. The four parts run,
// in file order, inside one strict function; see writer.py (_script).
// ARH HTML report: draws the page from the JSON blocks of this file; fetches nothing.
// Everything taken from a trace is untrusted: it reaches the page only through
// textContent and element properties, never as markup and never as a URL.
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

