// parts/firstpage.js: where a user starts after signing in (or changing a forced password).
import * as api from "../api.js";

// firstPage(session): where a signed-in user starts: the setup wizard for an admin while
// it has pending steps, else the status page.
export async function firstPage(s) {
	if (!s.admin)
		return "#/";
	try {
		const setup = await api.get("/api/setup");
		if (setup.steps.some((st) => st.state === "pending"))
			return "#/setup";
	} catch (e) {
		/* the status page shows what is wrong */
	}
	return "#/";
}
