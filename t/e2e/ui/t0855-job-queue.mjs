// t0855: the job list of the web UI says where each queued job stands and why it waits
// (t/t0855-ui-job-queue.sh): three queued jobs read "next in line", "2nd in line: 1 job goes
// first" and "3rd in line: 2 jobs go first"; a job queued while its library's job runs reads
// "waits for job N of the same library" (or a version of it)...
//   node t0855-job-queue.mjs BASE ADMIN_PASSWORD J1 J2 J3 RUNNING WAITING
import { ui, signIn } from "./ui.mjs";

const [base, password, j1, j2, j3, running, waiting] = process.argv.slice(2);
const t = ui(base);
const { check } = t;

await t.run(async () => {
	const page = await t.start();
	await signIn(page, "admin", password);
	await page.waitForURL((u) => !u.hash.startsWith("#/signin"));
	await page.goto("/#/jobs");
	const row = (id) => page.locator(`tr[data-job="${id}"]`);
	await row(j3).waitFor();
	const text = async (id) => (await row(id).textContent()).replace(/\s+/g, " ");
	check((await text(j1)).includes("next in line"), `job ${j1} reads "next in line"`);
	check((await text(j2)).includes("2nd in line: 1 job goes first"),
	    `job ${j2} reads "2nd in line: 1 job goes first"`);
	check((await text(j3)).includes("3rd in line: 2 jobs go first"),
	    `job ${j3} reads "3rd in line: 2 jobs go first"`);
	check((await text(waiting)).includes(`waits for job ${running} of the same library`),
	    `job ${waiting} reads that it waits for job ${running}`);
	await t.shot(page, "uiqueue-jobs");
});
