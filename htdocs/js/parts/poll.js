// parts/poll.js: the one polling loop of the UI.
//
// poll(node, tick, { every, upTo }): awaits tick() every `every` ms (first after one
// interval) while node is in the page. tick returns true to go on; any other value stops the
// loop, and the promise resolves with it. The promise resolves with null when node leaves
// the page (the view was left) or after upTo ms (default: no limit); it rejects when tick
// throws (a tick that should survive errors catches them itself).
export function poll(node, tick, { every, upTo = Infinity }) {
	const stop = Date.now() + upTo;
	return new Promise((resolve, reject) => {
		const round = async () => {
			if (!node.isConnected || Date.now() >= stop) {
				resolve(null);
				return;
			}
			let v;
			try {
				v = await tick();
			} catch (e) {
				reject(e);
				return;
			}
			if (v !== true)
				resolve(v);
			else if (!node.isConnected)
				resolve(null);
			else
				setTimeout(round, every);
		};
		setTimeout(round, every);
	});
}
