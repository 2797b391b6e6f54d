'use strict';

// The demo page: sends registrations to the sample app and shows what came back. No
// framework and no build step; every server value reaches the page through textContent.
(() => {
	const MASH_CLICKS = 10;
	// About the pace of a person mashing a button as fast as they can
	const MASH_INTERVAL_MS = 30;
	const EXPORTS = 6;

	const byId = (id) => document.getElementById(id);
	const responses = byId('responses');
	const summary = byId('summary');
	const storedUsers = byId('stored-users');
	const storedSummary = byId('stored-summary');

	let run = { name: null, pending: 0, users: true };
	let formToken = newFormToken();
	byId('form-token').textContent = formToken;

	function newFormToken() {
		const bytes = new Uint8Array(16);
		crypto.getRandomValues(bytes);
		return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
	}

	function endpoint() {
		return document.querySelector('input[name="endpoint"]:checked').value;
	}

	function instances() {
		const other = byId('other-instance').value.trim().replace(/\/+$/, '');
		return other ? ['', other] : [''];
	}

	// A new run clears the lists: a mash, or a submission of another name
	function startRun(name, clear, users = true) {
		if (clear || run.name !== name) {
			run = { name, pending: 0, users };
			responses.replaceChildren();
			storedUsers.replaceChildren();
			storedSummary.textContent = users ? 'Waiting for the responses…' : 'Exports store no users.';
		}
	}

	async function send(base, path, body) {
		try {
			const response = await fetch(base + path, {
				method: 'POST',
				headers: { 'Content-Type': 'application/json', Accept: 'application/json, application/problem+json' },
				body: JSON.stringify(body),
			});
			const text = await response.text();
			let json = null;
			try {
				json = text ? JSON.parse(text) : null;
			}
			catch (ignored) {
				// Shown as a status without a problem below
			}
			return { status: response.status, json, base };
		}
		catch (error) {
			return { status: 0, json: null, base, error: String(error && error.message ? error.message : error) };
		}
	}

	function describe(result) {
		if (result.status === 0) {
			return { title: 'No response', detail: result.error };
		}
		const json = result.json;
		if (result.status >= 200 && result.status < 300 && json && json.exportId) {
			const seconds = (Date.parse(json.finishedAt) - Date.parse(json.startedAt)) / 1000;
			return { title: 'Exported', detail: `Exported the report of ${json.tenant} in ${seconds} s, from ${json.startedAt}.` };
		}
		if (result.status >= 200 && result.status < 300 && json && json.userId) {
			return { title: 'Created', detail: `Registered ${json.userName} as ${json.userId} with ${json.points} points.` };
		}
		if (json && (json.title || json.detail)) {
			return { title: json.title || `HTTP ${result.status}`, detail: json.detail || '' };
		}
		return { title: `HTTP ${result.status}`, detail: 'The server sent no problem details.' };
	}

	function show(result, form, number) {
		const item = document.createElement('li');
		item.dataset.status = String(result.status);
		item.dataset.form = form;
		const status = document.createElement('span');
		const kind = result.status >= 200 && result.status < 300 ? 'status-2xx'
			: (result.status === 409 || result.status === 422) ? `status-${result.status}` : 'status-other';
		status.className = `status ${kind}`;
		status.textContent = result.status === 0 ? '—' : String(result.status);
		const { title, detail } = describe(result);
		const titleText = document.createElement('strong');
		titleText.className = 'title';
		titleText.textContent = title;
		const where = result.base ? ` (from ${result.base})` : '';
		const detailText = document.createElement('span');
		detailText.className = 'detail';
		detailText.textContent = `Request ${number}${where}: ${detail}`;
		item.append(status, titleText, detailText);
		responses.append(item);
	}

	function summarize() {
		const counts = new Map();
		for (const item of responses.children) {
			counts.set(item.dataset.status, (counts.get(item.dataset.status) || 0) + 1);
		}
		const parts = [...counts.entries()].sort().map(([status, count]) => `${count} × ${status === '0' ? 'no response' : status}`);
		summary.textContent = `${responses.children.length} responses: ${parts.join(', ')}.`;
	}

	async function lookUp(name) {
		const lines = [];
		let total = 0;
		for (const base of instances()) {
			try {
				const response = await fetch(`${base}/api/users?userName=${encodeURIComponent(name)}`);
				const users = response.ok ? await response.json() : [];
				total = Math.max(total, users.length);
				for (const user of users) {
					lines.push(`${user.userId} (${user.points} points)${base ? ` on ${base}` : ''}`);
				}
			}
			catch (error) {
				lines.push(`Could not look up ${base || 'this instance'}: ${error.message}`);
			}
		}
		if (run.name !== name) {
			return;
		}
		storedUsers.replaceChildren(...lines.map((line) => {
			const item = document.createElement('li');
			item.textContent = line;
			return item;
		}));
		storedSummary.dataset.count = String(total);
		storedSummary.textContent = total === 1 ? `1 registration of "${name}" is stored.`
			: `${total} registrations of "${name}" are stored.`;
	}

	// The caller counts the request in run.pending before it is sent
	async function submit(form, path, body, base, number) {
		const current = run;
		const result = await send(base, path, body);
		if (current !== run) {
			return;
		}
		show(result, form, number);
		summarize();
		if (--run.pending === 0) {
			if (run.users) {
				await lookUp(run.name);
			}
			if (current === run && run.pending === 0) {
				document.body.dataset.settled = 'true';
			}
		}
	}

	function count(requests) {
		run.pending += requests;
		document.body.dataset.settled = 'false';
	}

	let registerClicks = 0;

	byId('mash-form').addEventListener('submit', (event) => {
		event.preventDefault();
		const name = byId('mash-name').value;
		startRun(name, false);
		registerClicks++;
		const targets = instances();
		count(1);
		submit('register', endpoint(), { userName: name }, targets[registerClicks % targets.length], responses.children.length + run.pending);
	});

	byId('mash').addEventListener('click', () => {
		const name = byId('mash-name').value;
		startRun(name, true);
		const targets = instances();
		const path = endpoint();
		summary.textContent = `Sending ${MASH_CLICKS} requests…`;
		count(MASH_CLICKS);
		for (let i = 0; i < MASH_CLICKS; i++) {
			setTimeout(() => submit('mash', path, { userName: name }, targets[i % targets.length], i + 1), i * MASH_INTERVAL_MS);
		}
	});

	byId('guarded-form').addEventListener('submit', (event) => {
		event.preventDefault();
		const name = byId('guarded-name').value;
		startRun(name, false);
		count(1);
		submit('guarded', '/api/form/users', { userName: name, formToken }, '', responses.children.length + run.pending);
	});

	byId('exports-form').addEventListener('submit', (event) => {
		event.preventDefault();
		const tenant = byId('tenant').value.trim();
		startRun(`exports of ${tenant}`, true, false);
		const targets = instances();
		const path = `/api/tenants/${encodeURIComponent(tenant)}/exports${byId('exports-wait').checked ? '?wait=true' : ''}`;
		summary.textContent = `Starting ${EXPORTS} exports…`;
		count(EXPORTS);
		for (let i = 0; i < EXPORTS; i++) {
			submit('export', path, {}, targets[i % targets.length], i + 1);
		}
	});

	byId('new-form').addEventListener('click', () => {
		formToken = newFormToken();
		byId('form-token').textContent = formToken;
		byId('guarded-name').value = '';
		byId('guarded-name').focus();
	});
})();
