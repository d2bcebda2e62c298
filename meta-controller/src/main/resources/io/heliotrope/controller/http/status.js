'use strict';
// The status page: polls the controller's JSON API (/api/status, /api/vms, /api/applications, /api/locality) and redraws. Tests find what it shows
// by the ids of index.html and the data- attributes set here.

const POLL_MILLIS = 1500;
const REGIONS = 128;
const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#9467bd', '#d62728', '#8c564b', '#e377c2', '#17becf'];
const ZERO_COLOUR = '#d0d0d0';
const RTT_RED_MILLIS = 200;
const FETCH_TIMEOUT_MILLIS = 5000;

let lastAnswer = null;
let previousTraffic = null;

class ApiError extends Error {
  constructor(status, body) {
    super(body.message || 'HTTP ' + status);
    this.status = status;
  }
}

async function getJson(url) {
  const response = await fetch(url, {cache: 'no-store', signal: AbortSignal.timeout(FETCH_TIMEOUT_MILLIS)});
  const body = await response.json();
  if (!response.ok) {
    throw new ApiError(response.status, body);
  }
  return body;
}

async function poll() {
  let status;
  let vms;
  let applications;
  let localities;
  try {
    status = await getJson('/api/status');
    renderZooKeeper(status.zookeeper, Number(status.generatedEpochMillis));
    [vms, applications] = await Promise.all([getJson('/api/vms'), getJson('/api/applications')]);
    localities = await Promise.all(status.images.map(image =>
      getJson('/api/locality?image=' + encodeURIComponent(image.status.config.name) + '&regions=' + REGIONS)
        .catch(() => null)));
    lastAnswer = new Date();
  } catch (e) {
    const since = lastAnswer ? ' (last answer ' + lastAnswer.toLocaleTimeString() + ')' : '';
    if (e instanceof ApiError) {
      setConnection('error', 'the controller answers ' + e.status + ': ' + e.message + since);
    } else {
      setConnection('lost', 'the controller is not answering' + since);
    }
  }
  if (localities) {
    try {
      render(status, vms, applications, localities);
      setConnection('live', 'live, updated ' + lastAnswer.toLocaleTimeString());
    } catch (e) {
      setConnection('error', 'the page failed to draw the answer: ' + e);
    }
  }
  setTimeout(poll, POLL_MILLIS);
}

function setConnection(state, text) {
  const connection = document.getElementById('connection');
  connection.dataset.state = state;
  connection.textContent = text;
  document.getElementById('main').classList.toggle('stale', state !== 'live');
}

// Which part is down: the controller answers, and says whether it reaches ZooKeeper (out of reach, or its quorum lost).
function renderZooKeeper(zookeeper, now) {
  const element = document.getElementById('zookeeper');
  if (!zookeeper) {
    element.dataset.state = 'unknown';
    element.textContent = '';
    return;
  }
  const since = Math.max(0, Math.round((now - Number(zookeeper.sinceEpochMillis || 0)) / 1000));
  element.dataset.state = zookeeper.connected ? 'up' : 'down';
  element.textContent = zookeeper.connected ? 'ZooKeeper up'
    : 'ZooKeeper DOWN for ' + since + ' s (out of reach, or its quorum lost): opens and creates fail; open images are served '
      + 'while their leases last, then held';
}

function render(status, vms, applications, localities) {
  const now = Number(status.generatedEpochMillis);
  const names = status.sites.map(health => health.site.name);
  const colours = siteColours(names, localities);
  renderSites(status.sites, now);
  renderRtt(names, status.rtt ? status.rtt.rows : []);
  renderLegend(colours);
  renderImages(status.images, localities, colours, names);
  renderTraffic(status.sites, now);
  renderVms(vms.vms);
  renderInFlight(vms.inFlight, Number(vms.generatedEpochMillis));
  renderHistory(vms.history);
  renderApplications(applications.applications, applications.generatedEpochMillis);
  renderDecisions(applications.decisions);
  renderLeaseMoves(status.images);
}

function siteColours(names, localities) {
  const all = new Set(names);
  localities.forEach(locality => locality && locality.sites.forEach(site => all.add(site)));
  const colours = new Map();
  [...all].forEach((name, i) => colours.set(name, PALETTE[i % PALETTE.length]));
  return colours;
}

function renderSites(sites, now) {
  replaceRows('sites', sites.map(health => {
    const site = health.site;
    const state = health.up ? 'up' : 'down';
    return el('tr', {'data-site': site.name, 'data-up': String(health.up)},
      el('td', {'data-field': 'name'}, site.name),
      el('td', {'data-field': 'state', class: state}, state),
      el('td', {'data-field': 'grpc'}, site.grpcAddress),
      el('td', {'data-field': 'nbd'}, site.nbdAddress),
      el('td', {'data-field': 'last-seen'}, ago(now, Number(health.lastSeenEpochMillis))),
      el('td', {'data-field': 'error'}, health.error));
  }));
}

function renderRtt(names, rows) {
  const millis = new Map();
  rows.forEach(row => row.peers.forEach(peer => millis.set(row.site + '>' + peer.peer, Number(peer.rttMicros) / 1000)));
  const table = document.getElementById('rtt');
  table.replaceChildren(
    el('tr', {}, el('th', {}, 'from \\ to'), ...names.map(name => el('th', {}, name))),
    ...names.map(from => el('tr', {'data-from': from}, el('th', {}, from), ...names.map(to => rttCell(from, to, millis)))));
}

function rttCell(from, to, millis) {
  if (from === to) {
    return el('td', {class: 'self', 'data-from': from, 'data-to': to}, '–');
  }
  const ms = millis.get(from + '>' + to);
  if (ms === undefined) {
    return el('td', {'data-from': from, 'data-to': to}, '?');
  }
  const hue = 120 - 120 * Math.min(ms / RTT_RED_MILLIS, 1);
  return el('td', {'data-from': from, 'data-to': to, 'data-rtt-ms': ms.toFixed(1), style: 'background: hsl(' + hue + ', 70%, 78%)'},
    ms < 10 ? ms.toFixed(2) : ms.toFixed(1));
}

function renderLegend(colours) {
  document.getElementById('legend').replaceChildren(
    ...[...colours].map(([site, colour]) => el('span', {'data-site': site}, swatch(colour), site)),
    el('span', {'data-site': ''}, swatch(ZERO_COLOUR), 'zeros or never written'));
}

function swatch(colour) {
  return el('span', {class: 'swatch', style: 'background: ' + colour});
}

function renderImages(images, localities, colours, siteNames) {
  document.getElementById('images').replaceChildren(...images.map((image, i) => {
    const config = image.status.config;
    const lease = image.status.lease || {holder: '', epoch: '0', movingTo: ''};
    return el('div', {class: 'image', 'data-image': config.name},
      el('h3', {}, config.name),
      el('div', {class: 'facts'},
        fact('size', bytes(Number(config.sizeBytes))),
        fact('mode', mode(config.mode)),
        fact('holder', lease.holder || 'none', 'lease holder'),
        fact('epoch', lease.epoch),
        fact('meta-seq', image.status.metaSeq, 'metaSeq'),
        fact('home', config.home || '–')),
      strip(config.name, localities[i], colours),
      imageSites(image, siteNames));
  }));
}

function fact(field, value, label) {
  return el('span', {}, (label || field) + ' ', el('b', {'data-field': field}, String(value)));
}

function strip(image, locality, colours) {
  const cells = locality ? locality.holders.map((holder, region) => {
    const site = holder === 0 ? '' : locality.sites[holder - 1];
    const share = Math.round(100 * (locality.shares[region] || 0));
    const where = site ? site + ' holds ' + share + '% of its blocks' : 'zeros or never written';
    const offset = bytes(region * Number(locality.regionBytes));
    return el('span', {class: 'cell', 'data-region': String(region), 'data-site': site,
      style: 'background: ' + (site ? colours.get(site) : ZERO_COLOUR), title: 'region ' + region + ' at ' + offset + ': ' + where});
  }) : [];
  return el('div', {class: 'strip', 'data-image': image}, ...cells);
}

// One row per registered site: its current blocks from the catalog, the rest as the site reports it ('–' when it does not).
function imageSites(image, siteNames) {
  const current = new Map((image.status.currentBlocks || []).map(entry => [entry.site, entry.blocks]));
  const reported = new Map((image.sites || []).map(state => [state.site, state.image]));
  const columns = [
    ['allocated-blocks', s => s.allocatedBlocks],
    ['dirty-blocks', s => s.dirtyBlocks],
    ['queued-blocks', s => s.queuedBlocks],
    ['oldest-queued', s => Number(s.oldestQueuedMillis) > 0 ? (Number(s.oldestQueuedMillis) / 1000).toFixed(1) + ' s' : '–'],
    ['connections', s => s.connections],
    ['pushed-bytes', s => bytes(Number(s.pushedBytes))],
    ['fetched-bytes', s => bytes(Number(s.fetchedBytes))],
    ['elsewhere-blocks', s => openForWrite(s) ? s.elsewhereBlocks : '–'],
    ['pull', pull],
    ['sync', sync],
  ];
  return el('table', {class: 'image-sites'},
    el('tr', {}, ...['site', 'current blocks', 'allocated blocks', 'dirty blocks', 'queued blocks', 'oldest queued', 'connections', 'pushed', 'fetched',
      'elsewhere blocks', 'pull', 'sync']
      .map(name => el('th', {}, name))),
    ...siteNames.map(site => {
      const s = reported.get(site);
      return el('tr', {'data-site': site},
        el('td', {}, site),
        number('current-blocks', current.get(site) || '0'),
        ...columns.map(([field, value]) => number(field, s ? value(s) : '–')));
    }));
}

// A site where the image is open for writing reports its background pull, off or not.
function openForWrite(s) {
  return Boolean(s.pullState) && s.pullState !== 'PULL_STATE_UNSPECIFIED';
}

// What the site's background pull does: 'running 84.2 MiB/s', 'done', 'off', 'waiting', 'stopped'; '–' where the image is not open for writing.
function pull(s) {
  if (!openForWrite(s)) {
    return '–';
  }
  const state = s.pullState.replace('PULL_STATE_', '').toLowerCase();
  return state === 'running' ? state + ' ' + bytes(Number(s.pullBytesPerSecond)) + '/s' : state;
}

// Where a sync image open for writing at the site copies its writes: 'healthy → taiwan', or 'DEGRADED' with the sites that
// do not answer and the blocks they have yet to get; '–' elsewhere and for the other modes.
function sync(s) {
  if (!s.syncState || s.syncState === 'SYNC_STATE_UNSPECIFIED') {
    return '–';
  }
  const to = (s.syncSites || []).join(', ') || 'no site';
  if (s.syncState === 'SYNC_STATE_HEALTHY') {
    return 'healthy → ' + to;
  }
  const down = (s.syncDownSites || []).length ? '; not answering: ' + s.syncDownSites.join(', ') : '';
  return 'DEGRADED → ' + to + down + '; ' + (s.syncMissedBlocks || '0') + ' blocks only here';
}

function renderTraffic(sites, now) {
  const traffic = new Map();
  sites.forEach(health => (health.status ? health.status.peers : []).forEach(peer =>
    traffic.set(health.site.name + '>' + peer.peer, {pushed: Number(peer.pushedBytes), fetched: Number(peer.fetchedBytes)})));
  replaceRows('traffic', [...traffic].map(([pair, bytesNow]) => {
    const [from, to] = pair.split('>');
    const before = previousTraffic && previousTraffic.bytes.get(pair);
    const seconds = previousTraffic ? (now - previousTraffic.at) / 1000 : 0;
    return el('tr', {'data-from': from, 'data-to': to},
      el('td', {}, from), el('td', {}, to),
      number('pushed', bytes(bytesNow.pushed)),
      number('push-rate', rate(before && before.pushed, bytesNow.pushed, seconds)),
      number('fetched', bytes(bytesNow.fetched)),
      number('fetch-rate', rate(before && before.fetched, bytesNow.fetched, seconds)));
  }));
  previousTraffic = {at: now, bytes: traffic};
}

function rate(before, after, seconds) {
  if (before === undefined || seconds <= 0 || after < before) {
    return '–';
  }
  return bytes((after - before) / seconds) + '/s';
}

// One row per VM (id vm-NAME): its state at its site, its disks with their leases, and every site's QEMU of that name.
function renderVms(vms) {
  replaceRows('vms', vms.map(vm => el('tr', {id: 'vm-' + vm.name, 'data-vm': vm.name, 'data-site': vm.site, 'data-state': vm.state},
    el('td', {'data-field': 'name'}, vm.name),
    el('td', {'data-field': 'site'}, vm.site),
    el('td', {'data-field': 'state', class: vmStateClass(vm.state)}, vm.state + (vm.exitReason ? ': ' + vm.exitReason : '')),
    number('memory', bytes(vm.memoryBytes)),
    number('vcpus', vm.vcpus),
    el('td', {'data-field': 'disks'}, ...vm.disks.map(disk)),
    el('td', {'data-field': 'runtimes'}, vm.runtimes.map(r => r.site + ': ' + r.state + (r.incoming ? ' (incoming)' : '')).join(', ') || '–'))));
}

function vmStateClass(state) {
  if (state === 'running') {
    return 'up';
  }
  return state === 'exited' ? 'down' : '';
}

function disk(d) {
  const lease = d.error ? d.error : (d.holder || 'none') + ', epoch ' + d.epoch + (d.movingTo ? ' → ' + d.movingTo : '');
  return el('span', {class: 'disk', 'data-image': d.image, 'data-holder': d.holder, 'data-epoch': String(d.epoch), 'data-moving-to': d.movingTo},
    el('b', {}, d.image), ' ' + lease);
}

// One row per migration in flight (class migration-in-flight); a report older than the controller's limit is marked stale.
function renderInFlight(migrations, now) {
  replaceRows('migrations-in-flight', migrations.map(m => el('tr',
    {class: 'migration-in-flight' + (m.stale ? ' stale' : ''), 'data-vm': m.vm, 'data-id': m.id, 'data-phase': m.phase, 'data-stale': String(m.stale)},
    el('td', {'data-field': 'vm'}, m.vm),
    el('td', {'data-field': 'route'}, m.fromSite + ' → ' + m.toSite),
    el('td', {'data-field': 'phase'}, m.phase + (m.stale ? ' (stale: no report for ' + seconds(now - m.reportedEpochMillis) + ')' : '')),
    number('ram-sent', m.ramTotal > 0 ? m.ramSentPercent.toFixed(0) + '% of ' + bytes(m.ramTotal) : '–'),
    number('storage-backlog', bytes(m.storageBacklogBytes)),
    number('elapsed', seconds(m.elapsedMillis)),
    el('td', {'data-field': 'reported'}, ago(now, m.reportedEpochMillis)),
    el('td', {'data-field': 'requested-by'}, m.requestedBy),
    el('td', {'data-field': 'ensemble'}, m.ensembleId || '–'))));
}

// The newest migrations done across every VM (class migration-done), newest first.
function renderHistory(history) {
  replaceRows('migration-history', history.map(m => el('tr',
    {class: 'migration-done', 'data-vm': m.vm, 'data-id': m.id, 'data-outcome': m.outcome, 'data-ended': String(m.endedEpochMillis)},
    el('td', {'data-field': 'ended'}, new Date(m.endedEpochMillis).toLocaleString()),
    el('td', {'data-field': 'vm'}, m.vm),
    el('td', {'data-field': 'route'}, m.fromSite + ' → ' + m.toSite),
    el('td', {'data-field': 'outcome', class: m.outcome === 'completed' ? 'up' : 'down'}, m.outcome.replace('_', ' ')),
    el('td', {'data-field': 'reason'}, m.reason),
    number('downtime', millis(m.downtimeMicros)),
    number('handoff', millis(m.handoffMicros)),
    number('ram', bytes(m.ramBytes)),
    el('td', {'data-field': 'requested-by'}, m.requestedBy),
    el('td', {'data-field': 'ensemble'}, m.ensembleId || '–'))));
}

// One row per application (id app-NAME): its policy, each VM at its site, its leader VM and its newest decision.
function renderApplications(applications, now) {
  replaceRows('applications', applications.map(app => {
    const last = app.last;
    return el('tr', {id: 'app-' + app.name, 'data-app': app.name, 'data-policy': app.policy, 'data-outcome': last ? last.outcome : ''},
      el('td', {'data-field': 'name'}, app.name),
      el('td', {'data-field': 'policy'}, app.policy),
      el('td', {'data-field': 'vms'}, ...app.vms.flatMap((vm, i) => [i === 0 ? '' : ', ',
        el('span', {class: 'app-vm', 'data-vm': vm.vm, 'data-site': vm.site}, vm.vm + ' @ ' + (vm.site || '?'))])),
      el('td', {'data-field': 'leader'}, app.leader || '–'),
      el('td', {'data-field': 'outcome', class: last ? outcomeClass(last.outcome) : ''}, last ? outcomeText(last.outcome) : 'none yet'),
      el('td', {'data-field': 'reason'}, last ? last.reason : ''),
      el('td', {'data-field': 'when'}, last ? ago(now, last.lastEpochMillis) : '–'),
      number('repeats', last ? last.repeats : '–'));
  }));
}

// The newest decisions across every application (class decision), newest first.
function renderDecisions(decisions) {
  replaceRows('decisions', decisions.map(d => el('tr',
    {class: 'decision', 'data-app': d.application, 'data-outcome': d.outcome, 'data-last': String(d.lastEpochMillis)},
    el('td', {'data-field': 'last'}, new Date(d.lastEpochMillis).toLocaleString()),
    el('td', {'data-field': 'application'}, d.application),
    el('td', {'data-field': 'outcome', class: outcomeClass(d.outcome)}, outcomeText(d.outcome) + (d.dryRun ? ' (dry run)' : '')),
    el('td', {'data-field': 'reason'}, d.reason),
    el('td', {'data-field': 'moves'}, d.moves.map(m => m.vm + ': ' + m.fromSite + ' → ' + m.toSite).join(', ') || '–'),
    number('scores', score(d.currentScore) + ' → ' + score(d.bestScore)),
    number('repeats', d.repeats))));
}

function outcomeText(outcome) {
  return outcome.replace('_', ' ');
}

function outcomeClass(outcome) {
  if (outcome === 'move' || outcome === 'stay') {
    return 'up';
  }
  return outcome === 'error' || outcome === 'migration_failed' ? 'down' : '';
}

// A policy's score: a number, or "-Infinity" for a plan its filter rejects.
function score(value) {
  return typeof value === 'number' ? String(Number(value.toPrecision(6))) : String(value).replace('Infinity', '∞');
}

function millis(micros) {
  return micros > 0 ? (micros / 1000).toFixed(1) + ' ms' : '–';
}

function seconds(ms) {
  return (Math.max(0, ms) / 1000).toFixed(0) + ' s';
}

function renderLeaseMoves(images) {
  const moving = images.filter(image => image.status.lease && image.status.lease.movingTo);
  document.getElementById('lease-moves').replaceChildren(...(moving.length === 0 ? [el('li', {}, 'none')] : moving.map(image => {
    const lease = image.status.lease;
    return el('li', {'data-image': lease.image, 'data-from': lease.holder, 'data-to': lease.movingTo},
      image.status.config.name + ': ' + lease.holder + ' → ' + lease.movingTo + ' (epoch ' + lease.epoch + ')');
  })));
}

function replaceRows(tableId, rows) {
  document.querySelector('#' + tableId + ' tbody').replaceChildren(...rows);
}

function number(field, value) {
  return el('td', {class: 'number', 'data-field': field}, String(value));
}

function el(tag, attributes, ...children) {
  const element = document.createElement(tag);
  Object.entries(attributes).forEach(([name, value]) => element.setAttribute(name, value));
  element.append(...children);
  return element;
}

function mode(name) {
  return (name || '').replace('PROPAGATION_MODE_', '').toLowerCase().replace('_', '-');
}

function bytes(n) {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return (i === 0 ? String(Math.round(n)) : n.toFixed(n < 10 ? 2 : 1)) + ' ' + units[i];
}

function ago(now, then) {
  if (!then) {
    return 'never';
  }
  const seconds = Math.max(0, (now - then) / 1000);
  return seconds < 1 ? 'just now' : seconds.toFixed(0) + ' s ago';
}

poll();
