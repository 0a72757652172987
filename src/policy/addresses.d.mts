export type AddressRefusal = "link_local_address" | "metadata_address";
export type UrlRefusal = AddressRefusal | "invalid_url" | "scheme" | "credentials";
export function addressRefusal(text: string): AddressRefusal | null;
export function urlRefusal(text: string): UrlRefusal | null;
export function refusalWords(code: UrlRefusal): string;
