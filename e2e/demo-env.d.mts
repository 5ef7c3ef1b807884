export declare const E2E_DEMO_ENV: Record<"INFLIGHT_DEMO_DIR" | "INFLIGHT_DEMO_TABLE_MB" | "INFLIGHT_HISTORY_FILE", string>;
export declare const E2E_PORT: number;
