export const schemas: { sqlite: string; postgresql: string };
export function providerOfUrl(url: string): "sqlite" | "postgresql";
export function migrationFolders(schemaPath: string): {
  dir: string;
  migrations: Array<{ name: string; script: string | null }>;
};
