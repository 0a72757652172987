export declare class TurnBatch<V = unknown> {
  constructor(defer: (run: () => void) => void, flush: (values: V[]) => void);
  open(): V[];
}

export interface TickJob {
  id?: string | null;
  data: { triggerId: string; dueAt?: number | null };
  timestamp: number;
  delay: number;
}
export interface DecodedTick {
  id: number;
  triggerId: string;
  dueAt: number | null;
  jobId: string | null;
  timestamp: number;
  delay: number;
}
export declare const TickRecord: {
  readonly fields: readonly string[];
  readonly width: number;
  encode(out: unknown[], id: number, job: TickJob): void;
  decode(values: readonly unknown[], i: number): DecodedTick;
};
export declare const AnswerRecord: {
  readonly fields: readonly string[];
  readonly width: number;
  encode(out: unknown[], id: number, error: string | null): void;
  decode(values: readonly unknown[], i: number): { id: number; error: string | null };
};
export declare const SendRecord: {
  readonly fields: readonly string[];
  encode(
    out: unknown[],
    id: number,
    destination: string,
    body: string,
    keyIndex: number,
    webhookId: string,
    headers: Record<string, string>,
  ): void;
  decode(
    values: readonly unknown[],
    i: number,
  ): {
    id: number;
    destination: string;
    body: string;
    keyIndex: number;
    webhookId: string;
    headers: string[];
    next: number;
  };
};
export declare const ResultRecord: {
  readonly fields: readonly string[];
  readonly width: number;
  encode(out: unknown[], id: number, status: number, error: string | null): void;
  decode(values: readonly unknown[], i: number): { id: number; status: number; error: string | null };
};
