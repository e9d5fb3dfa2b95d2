// Starts the local server (`liars-dice serve`) for the test on a free port with a temporary
// data folder, and stops it afterwards.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");

export interface LocalServer {
  baseUrl: string;
  wsUrl: string;
  stop(): Promise<void>;
}

export async function startServer(env: Record<string, string> = {}): Promise<LocalServer> {
  const bin = process.env.LIARS_DICE_BIN ?? join(repo, ".venv/bin/liars-dice");
  if (!existsSync(bin)) {
    throw new Error(`${bin} not found: make the project's venv first (see README) or set LIARS_DICE_BIN`);
  }
  const data = mkdtempSync(join(tmpdir(), "liars-sdk-"));
  const child: ChildProcess = spawn(
    bin,
    ["serve", "--host", "127.0.0.1", "--port", "0", "--data", data, "--workers", "1"],
    { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  const baseUrl = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start in 60 s:\n${output}`)), 60_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /open (http:\/\/127\.0\.0\.1:\d+)\//.exec(output);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1]!);
      }
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before it was ready:\n${output}`));
    });
  });
  // Ready when /health answers.
  for (let i = 0; i < 100; i++) {
    try {
      const r = await fetch(`${baseUrl}/health`);
      if (r.ok) break;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    baseUrl,
    wsUrl: baseUrl.replace(/^http/, "ws") + "/ws",
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGINT");
        const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(data, { recursive: true, force: true });
    },
  };
}
