export const schemas: { sqlite: string; postgresql: string };
export function providerOfUrl(url: string): "sqlite" | "postgresql";
export function applyMigrations(url: string): Promise<string[]>;
export function pendingSchemaDiff(url: string): Promise<string>;
export function createMigration(url: string, name: string): Promise<string | null>;
