import { benchApprovals } from "./approvals";
import { benchChat } from "./chat";

// Each benchmark lives in its own file and prints its own figures; nothing here asserts timings.
await benchApprovals();
await benchChat();
process.exit(0); // pools and the wasm engine may keep the event loop alive
