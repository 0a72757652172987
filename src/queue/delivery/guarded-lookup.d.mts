import type { LookupFunction } from "node:net";

export const ADDRESS_REFUSED: "HOLDFAST_ADDRESS_REFUSED";
export const guardedLookup: LookupFunction;
export function guardLookup(resolve: LookupFunction): LookupFunction;
export function sendTimeRefusal(url: string): string | null;
