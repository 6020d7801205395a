// A host in another language: drives `gin-sim serve` through its JSON-line protocol.
// Usage: node serve_client.js REQUESTS.jsonl PYTHON
// Sends every line of REQUESTS.jsonl (as bytes: bad lines included) to
// `PYTHON -m gin_sim serve`, reads one answer per non-blank line, and prints
// one JSON summary: the answers in order and the server's exit code.
"use strict";
const { spawn } = require("child_process");
const fs = require("fs");
const readline = require("readline");

const [requestsPath, python] = process.argv.slice(2);
const requests = fs.readFileSync(requestsPath);
const server = spawn(python, ["-m", "gin_sim", "serve", "--strategy", "simple"], {
  stdio: ["pipe", "pipe", "inherit"],
});
const answers = [];
readline.createInterface({ input: server.stdout }).on("line", (line) => {
  const answer = JSON.parse(line); // every answer is one line of JSON, bad requests too
  if (answer.version !== 2) throw new Error(`unexpected version in ${line}`);
  answers.push(answer);
});
server.on("close", (code) => {
  process.stdout.write(JSON.stringify({ code, answers }) + "\n");
});
server.stdin.end(requests);
