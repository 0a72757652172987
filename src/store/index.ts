// The store's front door: open one Store per process (it picks the database's SqlRunner once) and pass it on.
// Each aggregate's operations are imported from its folder (control/, approvals/, held/, outbox/, ...).
export { type Db, openStore, pingDatabase, type Store, type Tx } from "./connection/client";
