// The Once dashboard: plain JavaScript over the JSON API (docs/DASHBOARD.md). No build step.
// Every value is put into the page with textContent, never as HTML.
(function () {
  'use strict';

  const REFRESH_MS = 2000;
  const state = {
    readOnly: true,
    token: null,
    status: 'dead',
    filter: {},
    cursors: [],        // 'before' ids of the pages shown before this one
    before: null,       // this page's 'before' (null: newest)
    nextBefore: null,
    selected: new Set(),
    detailId: null,
    charts: {},
  };

  // --- the token travels in the URL fragment (never sent to the server), kept for this tab only
  (function takeToken() {
    const m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
    if (m) {
      sessionStorage.setItem('once.token', decodeURIComponent(m[1]));
      history.replaceState(null, '', location.pathname + location.search);
    }
    state.token = sessionStorage.getItem('once.token');
  })();

  const $ = (sel) => document.querySelector(sel);

  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }

  function showError(msg) {
    const e = $('#error');
    e.textContent = msg || '';
    e.hidden = !msg;
  }

  async function get(path, params) {
    const q = new URLSearchParams();
    Object.entries(params || {}).forEach(([k, v]) => { if (v !== null && v !== undefined && v !== '') q.set(k, v); });
    const r = await fetch('api/' + path + (q.toString() ? '?' + q : ''), { cache: 'no-store' });
    const body = await r.json();
    if (!r.ok) throw new Error(body.error || ('HTTP ' + r.status));
    return body;
  }

  async function post(path, body) {
    if (!state.token) {
      const t = prompt('Token printed when the dashboard started:');
      if (!t) throw new Error('no token given: actions need the token printed at start');
      state.token = t.trim();
      sessionStorage.setItem('once.token', state.token);
    }
    const r = await fetch('api/' + path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Once-Token': state.token },
      body: JSON.stringify(body),
    });
    const answer = await r.json();
    if (r.status === 403 && /token/.test(answer.error || '')) {
      sessionStorage.removeItem('once.token');
      state.token = null;
    }
    if (!r.ok) throw new Error(answer.error || ('HTTP ' + r.status));
    return answer;
  }

  function age(seconds) {
    if (seconds === null || seconds === undefined) return '–';
    if (seconds < 1) return Math.round(seconds * 1000) + ' ms';
    if (seconds < 120) return seconds.toFixed(1) + ' s';
    if (seconds < 7200) return Math.floor(seconds / 60) + ' min';
    return Math.floor(seconds / 3600) + ' h';
  }

  function rate(v) {
    return v === null || v === undefined ? '–' : v.toFixed(1);
  }

  function time(iso) {
    return iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '';
  }

  function cell(tr, text, cls) {
    tr.appendChild(el('td', text, cls));
  }

  // --- overview ------------------------------------------------------------------------------
  async function overview() {
    const o = await get('overview');
    $('#updated').textContent = 'updated ' + time(o.at);
    $('#rate-source').textContent = 'rates from ' + o.rate_source;
    const tb = $('#consumers tbody');
    tb.replaceChildren();
    o.consumers.forEach((c) => {
      const tr = el('tr');
      tr.dataset.consumer = c.consumer;
      cell(tr, c.consumer);
      cell(tr, c.waiting, 'num waiting');
      cell(tr, age(c.oldest_seconds), 'num oldest' + (c.oldest_seconds > 60 ? ' warn' : ''));
      cell(tr, c.retry_waiting, 'num');
      cell(tr, c.dead_open, 'num dead-open' + (c.dead_open > 0 ? ' bad' : ''));
      const broker = c.broker_dead_letters;
      // read in the background: an old count means the broker has not answered since
      const stale = c.broker_dead_letters_age_seconds > 30;
      const shown = broker == null ? '–' : broker + (stale ? ' (' + age(c.broker_dead_letters_age_seconds) + ' old)' : '');
      cell(tr, shown, 'num broker-dead' + (broker > 0 ? ' bad' : '') + (stale ? ' warn' : ''));
      const r = c.rates_per_second;
      cell(tr, rate(r.arrival), 'num arrival');
      cell(tr, rate(r.completion), 'num completion');
      cell(tr, rate(r.retry), 'num');
      cell(tr, rate(r.duplicate), 'num');
      cell(tr, rate(r.dead), 'num');
      tb.appendChild(tr);
    });
    if (!o.consumers.length) {
      const tr = el('tr');
      tr.appendChild(el('td', 'no consumer activity yet', 'muted'));
      tb.appendChild(tr);
    }
    const ob = $('#outbox tbody');
    ob.replaceChildren();
    o.outbox.forEach((b) => {
      const tr = el('tr');
      cell(tr, b.destination);
      cell(tr, b.pending, 'num');
      cell(tr, b.parked, 'num' + (b.parked > 0 ? ' bad' : ''));
      cell(tr, age(b.oldest_seconds), 'num');
      ob.appendChild(tr);
    });
    if (!o.outbox.length) {
      const tr = el('tr');
      tr.appendChild(el('td', 'nothing pending', 'muted'));
      ob.appendChild(tr);
    }
    const pk = $('#parked-keys tbody');
    pk.replaceChildren();
    (o.parked_keys || []).forEach((k) => {
      const tr = el('tr');
      cell(tr, k.consumer);
      cell(tr, k.parked, 'num' + (k.parked > 0 ? ' bad' : ''));
      cell(tr, k.waiting, 'num');
      cell(tr, age(k.oldest_seconds), 'num');
      pk.appendChild(tr);
    });
    if (!(o.parked_keys || []).length) {
      const tr = el('tr');
      tr.appendChild(el('td', 'no key parked', 'muted'));
      pk.appendChild(tr);
    }
    const chips = $('#op-states');
    chips.replaceChildren();
    const byState = {};
    o.operations.forEach((s) => { byState[s.state] = s; });
    ['PENDING', 'IN_FLIGHT', 'SUCCEEDED', 'FAILED', 'UNKNOWN', 'ABANDONED'].forEach((name) => {
      const s = byState[name] || { count: 0 };
      const uncertain = name === 'UNKNOWN' || name === 'ABANDONED';
      const chip = el('span', name + ' ' + s.count,
        'chip' + (uncertain ? ' uncertain' + (s.count === 0 ? ' zero' : '') : ''));
      chip.dataset.state = name;
      chips.appendChild(chip);
    });
    $('#dl-open').textContent = o.dead_letters_open + ' open';
    const sel = $('#chart-consumer');
    o.consumers.forEach((c) => {
      if (![...sel.options].some((x) => x.value === c.consumer)) {
        sel.appendChild(new Option(c.consumer, c.consumer));
      }
    });
  }

  // --- charts --------------------------------------------------------------------------------
  const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#4b5563'];

  function chart(key, target, series, data) {
    const width = Math.max(380, $(target).clientWidth || 600);
    const sig = series.map((s) => s.label).join('|');
    const existing = state.charts[key];
    if (existing && existing.sig === sig) {
      existing.plot.setData(data);
      return;
    }
    if (existing) existing.plot.destroy();
    const opts = {
      width, height: 220,
      series: [{}].concat(series.map((s, i) => ({ label: s.label, stroke: s.color || COLORS[i % COLORS.length], width: 2 }))),
      axes: [{}, { size: 60 }],
      scales: { x: { time: true } },
    };
    state.charts[key] = { sig, plot: new uPlot(opts, data, $(target)) };
  }

  async function series() {
    const s = await get('series', { minutes: 5 });
    const names = Object.keys(s.consumers);
    const pick = $('#chart-consumer').value;
    const sum = (what) => s.at.map((_, i) => names
      .filter((n) => !pick || n === pick)
      .reduce((acc, n) => acc + (s.consumers[n][what][i] || 0), 0));
    chart('rates', '#chart-rates',
      [{ label: 'arrival', color: '#2563eb' }, { label: 'completion', color: '#16a34a' }],
      [s.at, sum('arrival'), sum('completion')]);
    chart('age', '#chart-age', names.map((n) => ({ label: n })),
      [s.at].concat(names.map((n) => s.consumers[n].oldest_seconds)));
  }

  // --- dead letters ----------------------------------------------------------------------------
  async function groups() {
    const g = await get('dead-letters/groups', { status: state.status });
    const tb = $('#dl-groups tbody');
    tb.replaceChildren();
    g.groups.forEach((x) => {
      const tr = el('tr', null, 'clickable');
      tr.dataset.fingerprint = x.fingerprint;
      cell(tr, x.consumer);
      cell(tr, x.type);
      cell(tr, x.fingerprint);
      cell(tr, x.error_class.replace(/^.*\./, ''));
      cell(tr, x.count, 'num count');
      cell(tr, time(x.last_dead_at));
      cell(tr, x.sample_message, 'msg');
      const td = el('td', null, 'action');
      if (state.status === 'dead') {
        const rb = el('button', 'Replay group', 'replay-group');
        rb.onclick = (ev) => { ev.stopPropagation(); actOnGroup('replay', x); };
        const db = el('button', 'Discard group', 'discard-group');
        db.onclick = (ev) => { ev.stopPropagation(); actOnGroup('discard', x); };
        td.append(rb, ' ', db);
      }
      tr.appendChild(td);
      tr.onclick = () => {
        state.filter = { consumer: x.consumer, type: x.type, fingerprint: x.fingerprint };
        fillFilterForm();
        firstPage();
      };
      tb.appendChild(tr);
    });
  }

  function fillFilterForm() {
    const f = $('#dl-filter');
    ['consumer', 'type', 'fingerprint', 'event'].forEach((n) => { f.elements[n].value = state.filter[n] || ''; });
  }

  async function list() {
    const page = await get('dead-letters', Object.assign({ status: state.status, before: state.before, limit: 50 }, state.filter));
    state.nextBefore = page.next_before;
    const tb = $('#dl-list tbody');
    tb.replaceChildren();
    page.items.forEach((d) => {
      const tr = el('tr', null, 'clickable');
      tr.dataset.id = d.id;
      tr.dataset.eventId = d.event_id;
      const box = el('input');
      box.type = 'checkbox';
      box.checked = state.selected.has(d.id);
      box.disabled = d.status !== 'dead';
      box.onclick = (ev) => {
        ev.stopPropagation();
        if (box.checked) state.selected.add(d.id); else state.selected.delete(d.id);
        selectionChanged();
      };
      const td = el('td', null, 'action');
      td.appendChild(box);
      tr.appendChild(td);
      cell(tr, d.id, 'num');
      cell(tr, d.consumer);
      cell(tr, d.event_id);
      cell(tr, d.type);
      cell(tr, d.attempts, 'num');
      cell(tr, d.error_class.replace(/^.*\./, ''));
      cell(tr, time(d.dead_at));
      cell(tr, d.status, 'status');
      tr.onclick = () => detail(d.id);
      tb.appendChild(tr);
    });
    $('#dl-older').disabled = !state.nextBefore;
    $('#dl-newest').disabled = state.before === null;
    $('#dl-page').textContent = page.items.length + ' shown' + (state.before ? ' (older page)' : ' (newest first)');
  }

  function selectionChanged() {
    const n = state.selected.size;
    $('#dl-replay-selected').disabled = n === 0;
    $('#dl-discard-selected').disabled = n === 0;
    $('#dl-replay-selected').textContent = 'Replay selected' + (n ? ' (' + n + ')' : '');
    $('#dl-discard-selected').textContent = 'Discard selected' + (n ? ' (' + n + ')' : '');
  }

  function firstPage() {
    state.before = null;
    state.cursors = [];
    state.selected.clear();
    selectionChanged();
    return list().catch((e) => showError(e.message));
  }

  async function detail(id) {
    const d = await get('dead-letters/' + id);
    state.detailId = id;
    $('#dl-detail').hidden = false;
    $('#d-id').textContent = d.id + ' (' + d.status + ')';
    const dl = $('#d-fields');
    dl.replaceChildren();
    [['consumer', d.consumer], ['event', d.event_id], ['destination', d.destination], ['key', d.key],
      ['type', d.type], ['attempts', d.attempts], ['failed', time(d.first_failed_at) + ' .. ' + time(d.last_failed_at)],
      ['dead at', time(d.dead_at)], ['trace id', d.trace_id || '(none)'], ['error', d.error_class + ' (fingerprint ' + d.fingerprint + ')'],
      ['message', d.error_message],
      ['last attempt', d.final_attempt_crashed ? 'crashed or hung (the error is the last one recorded)' : 'failed with this error'],
      ['resolved at', time(d.resolved_at)]].forEach(([k, v]) => {
      dl.append(el('dt', k), el('dd', v === null || v === undefined ? '' : v));
    });
    const p = d.payload;
    $('#d-payload').textContent = p.summary + '\nsha256 ' + p.sha256 + '\nshape ' + JSON.stringify(p.shape, null, 2);
    const ul = $('#d-actions');
    ul.replaceChildren();
    d.actions.forEach((a) => ul.appendChild(el('li', time(a.at) + ' ' + a.action + ' by ' + a.actor + (a.reason ? ': ' + a.reason : ''))));
    if (!d.actions.length) ul.appendChild(el('li', 'none', 'muted'));
    $('#d-replay').disabled = d.status !== 'dead';
    $('#d-discard').disabled = d.status !== 'dead';
    const k = d.parked_key;
    state.parkedKey = k;
    $('#d-parked').hidden = !k;
    if (k) {
      $('#d-parked-text').textContent = 'Heads the parked key ' + k.key + ' of ' + k.consumer + ' (' + k.destination +
        '): ' + k.behind + ' event' + (k.behind === 1 ? '' : 's') + ' wait behind it, in order.';
    }
  }

  async function reveal() {
    const r = await post('dead-letters/' + state.detailId + '/payload', {});
    $('#d-payload').textContent = (r.payload.encoding === 'base64' ? '(base64) ' : '') + r.payload.text;
  }

  // --- confirmation and actions ------------------------------------------------------------------
  function confirmAction(text) {
    const dlg = $('#confirm');
    $('#confirm-text').textContent = text;
    $('#confirm-reason').value = '';
    return new Promise((resolve) => {
      dlg.onclose = () => resolve(dlg.returnValue === 'ok' ? ($('#confirm-reason').value || null) : undefined);
      dlg.showModal();
    });
  }

  function plural(n) {
    return n + ' dead letter' + (n === 1 ? '' : 's');
  }

  async function act(action, body, count, what) {
    const reason = await confirmAction(
      (action === 'replay' ? 'Replay ' : 'Discard ') + plural(count) + what + '?' +
      (action === 'replay' ? ' Each is published again with its event id, to its consumer group.' : ' They will not be processed.'));
    if (reason === undefined) return;
    body.reason = reason;
    try {
      const r = await post('dead-letters/' + action, body);
      showError('');
      $('#updated').textContent = (action === 'replay' ? 'replayed ' : 'discarded ') + plural(r.done);
    } catch (e) {
      showError(e.message);
    }
    state.selected.clear();
    selectionChanged();
    refreshDeadLetters();
    if (state.detailId) detail(state.detailId).catch(() => {});
  }

  async function actOnGroup(action, g) {
    const c = await get('dead-letters/count', { consumer: g.consumer, type: g.type, fingerprint: g.fingerprint, status: 'dead' });
    act(action, { group: { consumer: g.consumer, type: g.type, fingerprint: g.fingerprint }, expected: c.count },
      c.count, ' of ' + g.consumer + ' / ' + g.type + ' / ' + g.fingerprint);
  }

  function actOnSelection(action) {
    const ids = [...state.selected];
    act(action, { ids }, ids.length, ' (selected)');
  }

  function actOnOne(action) {
    act(action, { ids: [state.detailId] }, 1, ' (id ' + state.detailId + ')');
  }

  async function actOnKey(action) {
    const k = state.parkedKey;
    const reason = await confirmAction((action === 'replay' ? 'Replay' : 'Discard') + ' the parked key ' + k.key + ' of ' + k.consumer + '? ' +
      (action === 'replay'
        ? 'Its head runs first, then the ' + k.behind + ' events behind it, in order.'
        : 'Its head and the ' + k.behind + ' events behind it will not be processed: the events are deleted, each recorded in the action log.'));
    if (reason === undefined) return;
    try {
      const r = await post('parked-keys/' + action, { consumer: k.consumer, key: k.key, expected: k.behind, reason });
      showError('');
      $('#updated').textContent = (action === 'replay' ? 'replayed ' : 'discarded ') + r.keys.length + ' parked key' + (r.keys.length === 1 ? '' : 's');
    } catch (e) {
      showError(e.message);
    }
    refreshDeadLetters();
    if (state.detailId) detail(state.detailId).catch(() => {});
  }

  // --- operations --------------------------------------------------------------------------------
  async function operations() {
    const o = await get('operations', { limit: 100 });
    const tb = $('#uncertain tbody');
    tb.replaceChildren();
    o.uncertain.forEach((u) => {
      const tr = el('tr');
      cell(tr, u.operation_id);
      cell(tr, u.provider);
      cell(tr, u.idempotency_key);
      cell(tr, u.state, 'bad');
      cell(tr, u.attempts, 'num');
      cell(tr, age(u.age_seconds), 'num');
      cell(tr, time(u.next_attempt_at));
      cell(tr, u.resolution, 'msg');
      cell(tr, u.last_error, 'msg');
      tb.appendChild(tr);
    });
    if (!o.uncertain.length) {
      const tr = el('tr');
      tr.appendChild(el('td', 'none', 'muted'));
      tb.appendChild(tr);
    }
  }

  // --- wiring ------------------------------------------------------------------------------------
  function refreshDeadLetters() {
    return Promise.all([groups(), state.before === null ? list() : Promise.resolve()]);
  }

  async function tick() {
    try {
      await Promise.all([overview(), series(), refreshDeadLetters(), operations()]);
      showError('');
    } catch (e) {
      showError(e.message);
    }
    setTimeout(tick, REFRESH_MS);
  }

  async function init() {
    const c = await get('config');
    state.readOnly = c.read_only;
    document.body.classList.toggle('read-only', c.read_only);
    $('#mode').textContent = c.read_only ? 'read-only' : (state.token ? 'actions on' : 'actions need the token');
    $('#mode').classList.toggle('ro', c.read_only);
    $('#dl-status').onchange = (e) => { state.status = e.target.value; firstPage(); groups(); };
    $('#dl-filter').onsubmit = (e) => {
      e.preventDefault();
      const f = e.target.elements;
      state.filter = {};
      ['consumer', 'type', 'fingerprint', 'event'].forEach((n) => { if (f[n].value) state.filter[n] = f[n].value; });
      firstPage();
    };
    $('#dl-clear').onclick = () => { state.filter = {}; fillFilterForm(); firstPage(); };
    $('#dl-older').onclick = () => { state.cursors.push(state.before); state.before = state.nextBefore; list(); };
    $('#dl-newest').onclick = () => firstPage();
    $('#dl-all').onclick = (e) => {
      document.querySelectorAll('#dl-list tbody tr').forEach((tr) => {
        const box = tr.querySelector('input[type=checkbox]');
        if (box && !box.disabled) {
          box.checked = e.target.checked;
          const id = Number(tr.dataset.id);
          if (box.checked) state.selected.add(id); else state.selected.delete(id);
        }
      });
      selectionChanged();
    };
    $('#dl-replay-selected').onclick = () => actOnSelection('replay');
    $('#dl-discard-selected').onclick = () => actOnSelection('discard');
    $('#d-replay').onclick = () => actOnOne('replay');
    $('#d-discard').onclick = () => actOnOne('discard');
    $('#d-replay-key').onclick = () => actOnKey('replay');
    $('#d-discard-key').onclick = () => actOnKey('discard');
    $('#d-reveal').onclick = () => reveal().catch((e) => showError(e.message));
    $('#d-close').onclick = () => { $('#dl-detail').hidden = true; state.detailId = null; };
    $('#chart-consumer').onchange = () => series().catch((e) => showError(e.message));
    tick();
  }

  init().catch((e) => showError(e.message));
})();
