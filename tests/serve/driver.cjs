// A harness written with nothing but Node's net module: runs each step of a plan in
// turn and prints every event of each process, as received, as one JSON object.
// usage: node driver.cjs SOCKET PLAN_JSON   (plan: {session, open, runs: [{data, input}]})
const net = require("net");
const [socketPath, planText] = process.argv.slice(2);
const plan = JSON.parse(planText);
const sock = net.createConnection(socketPath);
let buffer = "", next = 1, step = -1, current = null;
const waiting = new Map(), events = {};
function send(command, data) {
  const messageId = `n${next++}`;
  sock.write(JSON.stringify({ messageId, sessionId: plan.session, command, data }) + "\n");
  return new Promise((resolve, reject) => waiting.set(messageId, { resolve, reject }));
}
async function runNext() {
  step += 1;
  if (step === plan.runs.length) { console.log(JSON.stringify(events)); sock.end(); return; }
  const { data, input } = plan.runs[step];
  current = (await send("RunExecutable", data)).processId;
  events[current] = events[current] || [];
  if (input !== undefined) await send("ProcessWrite", { processId: current, data: input, eof: true });
}
sock.on("data", (chunk) => {
  buffer += chunk.toString("utf8");
  let end;
  while ((end = buffer.indexOf("\n")) >= 0) {
    const message = JSON.parse(buffer.slice(0, end));
    buffer = buffer.slice(end + 1);
    if ("success" in message) {
      const w = waiting.get(message.messageId);
      waiting.delete(message.messageId);
      message.success ? w.resolve(message.data) : w.reject(new Error(message.error));
      continue;
    }
    const id = message.data.processId;
    (events[id] = events[id] || []).push(message);
    if (message.command === "ProcessExit" && id === current) runNext();
  }
});
send("OpenSession", plan.open).then(runNext, (e) => { console.error(e); process.exit(1); });
