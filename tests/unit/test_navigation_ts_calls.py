"""TypeScript the way MQTT.js writes its client and its tests: overloaded methods told
apart by an options object or a callback (`publish(topic, message, {qos: 1})` vs
`publish(topic, message, callback)`), a suite-level helper function without a declared
return type (`function connect(opts) { const instance = mqtt.connect(opts); return
instance }`), and a `let client` declared bare and assigned in a hook. Real tree-sitter,
real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import indexed_tree

CLIENT = (
    "export type PacketCallback = (error?: Error, packet?: object) => any\n"
    "export interface IClientPublishOptions {\n  qos?: number\n}\n"
    "export interface IClientOptions {\n  host?: string\n}\n\n"
    "export default class MqttClient {\n"
    "  public publish(topic: string, message: string): MqttClient\n"
    "  public publish(topic: string, message: string, callback?: PacketCallback): MqttClient\n"
    "  public publish(topic: string, message: string, opts?: IClientPublishOptions, callback?: PacketCallback): MqttClient\n"
    "  public publish(topic: string, message: string, opts?: IClientPublishOptions | PacketCallback, callback?: PacketCallback): MqttClient {\n"
    "    return this\n  }\n\n"
    "  public reconnect(): MqttClient {\n    return this\n  }\n"
    "}\n"
)
CONNECT = (
    'import MqttClient, { IClientOptions } from "../client"\n\n'
    "function connect(brokerUrl: string): MqttClient\n"
    "function connect(opts: IClientOptions): MqttClient\n"
    "function connect(brokerUrl: string | IClientOptions, opts?: IClientOptions): MqttClient {\n"
    "  return new MqttClient()\n}\n\n"
    "export default connect\n"
)
TEST = (
    'import mqttConnect from "../src/lib/connect"\n\n'
    "export default function abstractTest(config) {\n"
    "  function connect(opts?: object) {\n"
    "    const instance = mqttConnect({ ...config, ...opts })\n"
    "    return instance\n"
    "  }\n\n"
    '  describe("publishing", () => {\n'
    "    let client\n"
    "    beforeEach(() => {\n      client = connect()\n    })\n\n"
    '    it("publishes", (done) => {\n'
    "      const c = connect({ reconnectPeriod: 0 })\n"
    "      c.reconnect()\n"
    '      c.publish("a", "b")\n'
    '      c.publish("a", "b", { qos: 1 })\n'
    '      c.publish("a", "b", () => done())\n'
    "      const opts = { qos: 2 }\n"
    '      c.publish("a", "b", opts, done)\n'
    "      client.reconnect()\n"
    "    })\n"
    "  })\n"
    "}\n"
)
# the same method names elsewhere: ranking by name alone cannot tell
OTHER = "export class Server {\n  reconnect(): void {}\n  publish(packet: object): void {}\n}\n"
FILES = {
    "src/lib/client.ts": CLIENT,
    "src/lib/connect/index.ts": CONNECT,
    "src/lib/server.ts": OTHER,
    "test/abstract_client.ts": TEST,
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("tscalls") / "repo", FILES)


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines()) if needle in line)


def defs(live: LiveIndex, needle: str, word: str) -> list[tuple[str, int]]:
    n = _line(TEST, needle)
    line = TEST.splitlines()[n]
    _, found = live.resolve("test/abstract_client.ts", n, line.index(word) + 1)
    return [(s.path, s.symbol.selection_range.start.line) for s in found]


def at(needle: str) -> tuple[str, int]:
    return ("src/lib/client.ts", _line(CLIENT, needle))


def test_a_local_helper_returns_what_its_return_statement_returns(live: LiveIndex):
    # before: `connect` declared in the suite function had no type: `c` answered by name
    assert defs(live, "c.reconnect()", "reconnect") == [at("public reconnect()")]


def test_a_bare_let_takes_the_type_of_its_assignment_in_a_hook(live: LiveIndex):
    assert defs(live, "client.reconnect()", "reconnect") == [at("public reconnect()")]


def test_an_object_or_a_function_argument_picks_the_overload(live: LiveIndex):
    assert defs(live, 'c.publish("a", "b")', "publish") == [at("message: string): MqttClient")]
    # an object literal cannot be a callback: the options overload
    assert defs(live, "{ qos: 1 })", "publish") == [at("opts?: IClientPublishOptions, callback")]
    assert defs(live, "() => done())", "publish") == [at("message: string, callback?: PacketCallback")]
    # a local holding an object literal counts as one
    assert defs(live, "opts, done)", "publish") == [at("opts?: IClientPublishOptions, callback")]


WORKER = {
    "src/types/processor.ts": (
        'import { Job } from "../classes/job"\n\n'
        "export type Processor<T = any, R = any> = (job: Job<T, R>, token?: string) => Promise<R>\n"
    ),
    "src/classes/job.ts": (
        "export class Job<T = any, R = any> {\n  data: T\n"
        "  async updateProgress(progress: number): Promise<void> {}\n}\n"
    ),
    "src/classes/worker.ts": (
        'import { Processor } from "../types/processor"\n'
        'import { Job } from "./job"\n\n'
        "export class Worker<T = any, R = any> {\n"
        "  constructor(name: string, processor?: string | URL | null | Processor<T, R>, opts?: object) {}\n"
        "  once<U extends keyof WorkerListener<T, R>>(event: U, listener: WorkerListener<T, R>[U]): this {\n"
        "    return this\n  }\n}\n\n"
        "export interface WorkerListener<T = any, R = any> {\n"
        "  closed: () => void\n"
        "  failed: (\n    job: Job<T, R> | undefined,\n    error: Error,\n  ) => void\n"
        "}\n"
    ),
    # a same-named method elsewhere: by name alone `job.updateProgress` is ambiguous
    "src/classes/queue-events.ts": "export class QueueEvents {\n  updateProgress(p: number): void {}\n}\n",
    "tests/worker.test.ts": (
        'import { Worker } from "../src/classes/worker"\n'
        'import { Job } from "../src/classes/job"\n\n'
        'describe("workers", () => {\n'
        '  it("processes", async () => {\n'
        "    const worker = new Worker('q', async job => {\n"
        "      await job.updateProgress(42)\n"
        "    })\n"
        "    const jobs: Job[] = []\n"
        "    jobs.forEach((j) => j.updateProgress(1))\n"
        "    worker.once('failed', async (failed, err) => {\n"
        "      await failed?.updateProgress(0)\n"
        "    })\n"
        "  })\n"
        "})\n"
    ),
}


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("tsworker") / "repo", WORKER)


def test_a_callback_parameter_takes_the_declared_function_types_parameter(worker: LiveIndex):
    # `new Worker(name, async job => …)`: `job` is parameter 0 of `Processor<T, R>`, an
    # alias of a function type, one member of the constructor parameter's union
    test = WORKER["tests/worker.test.ts"]
    for needle in ("await job.updateProgress", "j.updateProgress", "failed?.updateProgress"):
        n = _line(test, needle)
        line = test.splitlines()[n]
        _, found = worker.resolve("tests/worker.test.ts", n, line.index("updateProgress") + 1)
        assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [("src/classes/job.ts", 2)]


def test_an_import_by_project_path_under_base_url(tmp_path):
    # tsconfig `"baseUrl": "./"`: `from 'src/lib/client'` is the project file, not a package
    live = indexed_tree(tmp_path / "repo", {
        "src/lib/client.ts": CLIENT,
        "src/lib/server.ts": OTHER,
        "test/client.ts": (
            "import { type IClientOptions } from 'src/lib/client'\n\n"
            "const config: IClientOptions = { host: 'localhost' }\n"
        ),
    })
    _, found = live.resolve("test/client.ts", 2, len("const config: I"))
    assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [at("export interface IClientOptions")]


def test_a_function_assigned_to_a_typed_variable_takes_its_parameter_types(tmp_path):
    # MQTT.js' packet handlers: `const handlePublish: PacketHandler = (client, packet) => …`
    live = indexed_tree(tmp_path / "repo", {
        "src/lib/client.ts": CLIENT,
        "src/lib/server.ts": OTHER,
        "src/lib/shared.ts": (
            'import type MqttClient from "./client"\n\n'
            "export type PacketHandler = (client: MqttClient, packet: object, done?: () => void) => void\n"
        ),
        "src/lib/handlers/publish.ts": (
            'import { type PacketHandler } from "../shared"\n\n'
            "const handlePublish: PacketHandler = (client, packet, done) => {\n"
            "  client.reconnect()\n"
            "}\n\nexport default handlePublish\n"
        ),
    })
    _, found = live.resolve("src/lib/handlers/publish.ts", 3, len("  client.re"))
    assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [at("public reconnect()")]


def test_a_class_whose_type_parameters_fill_the_signature_keeps_its_base(tmp_path):
    # bullmq's Queue: seven type parameters with defaults before `extends QueueGetters<…>`;
    # the stored signature was cut before the base, so no inherited member resolved
    queue = (
        'import { QueueBase } from "./queue-base"\n\n'
        "export class Queue<\n"
        "  DataTypeOrJob = any,\n  DefaultResultType = any,\n  DefaultNameType extends string = string,\n"
        "  DataType = ExtractDataType<DataTypeOrJob, DataTypeOrJob>,\n"
        "  ResultType = ExtractResultType<DataTypeOrJob, DefaultResultType>,\n"
        "  NameType extends string = ExtractNameType<DataTypeOrJob, DefaultNameType>,\n"
        "  B extends IQueueBackend = RedisQueueBackend,\n"
        "> extends QueueBase<B> {\n"
        "  async add(): Promise<void> {\n    await this.waitUntilReady()\n  }\n}\n"
    )
    live = indexed_tree(tmp_path / "repo", {
        "src/classes/queue.ts": queue,
        "src/classes/queue-base.ts": "export class QueueBase<B = any> {\n  async waitUntilReady(): Promise<void> {}\n}\n",
        "src/classes/worker.ts": "export class Worker {\n  async waitUntilReady(): Promise<void> {}\n}\n",
    })
    n = _line(queue, "this.waitUntilReady")
    _, found = live.resolve("src/classes/queue.ts", n, queue.splitlines()[n].index("waitUntilReady") + 1)
    assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [("src/classes/queue-base.ts", 1)]


def test_an_item_of_an_awaited_array(tmp_path):
    # bullmq: `const jobs = await queue.addBulk([...]); jobs[1].id` with `Promise<Job[]>`
    live = indexed_tree(tmp_path / "repo", {
        "src/classes/job.ts": "export class Job {\n  id?: string\n}\n",
        "src/classes/flow.ts": "export class Flow {\n  id?: string\n}\n",
        "src/classes/queue.ts": (
            'import { Job } from "./job"\n\n'
            "export class Queue {\n  async addBulk(jobs: object[]): Promise<Job[]> {\n    return []\n  }\n}\n"
        ),
        "tests/bulk.test.ts": (
            'import { Queue } from "../src/classes/queue"\n\n'
            "it('adds', async () => {\n"
            "  const queue = new Queue()\n"
            "  const jobs = await queue.addBulk([{}])\n"
            "  expect(jobs[1].id).toBeTruthy()\n"
            "})\n"
        ),
    })
    _, found = live.resolve("tests/bulk.test.ts", 5, len("  expect(jobs[1].i"))
    assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [("src/classes/job.ts", 1)]


def test_a_class_type_parameter_in_a_return_type_stands_for_its_constraint(tmp_path):
    # bullmq: `class QueueGetters<JobBase extends Job = Job>`, `getJob(): Promise<JobBase | undefined>`
    live = indexed_tree(tmp_path / "repo", {
        "src/classes/job.ts": "export class Job {\n  async getState(): Promise<string> {\n    return ''\n  }\n}\n",
        "src/classes/backend.ts": "export class Backend {\n  async getState(): Promise<string> {\n    return ''\n  }\n}\n",
        "src/classes/queue-getters.ts": (
            'import { Job } from "./job"\n\n'
            "export class QueueGetters<JobBase extends Job = Job> {\n"
            "  getJob(jobId: string): Promise<JobBase | undefined> {\n    return Promise.resolve(undefined)\n  }\n}\n"
        ),
        "tests/flow.test.ts": (
            'import { QueueGetters } from "../src/classes/queue-getters"\n\n'
            "it('reads', async () => {\n"
            "  const queue = new QueueGetters()\n"
            "  const childJob = await queue.getJob('1')\n"
            "  const state = await childJob!.getState()\n"
            "})\n"
        ),
    })
    _, found = live.resolve("tests/flow.test.ts", 5, len("  const state = await childJob!.getS"))
    assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [("src/classes/job.ts", 1)]


def test_a_member_of_an_object_literal_a_local_holds(tmp_path):
    # MQTT.js' table-driven tests: `const tests = [{ period: 200 }, …]; tests.forEach((test) =>
    # … test.period …)`: tsserver answers the key in the first literal
    test = (
        "const reconnectPeriodTests = [\n"
        "  { period: 200 },\n"
        "  { period: 2000 },\n"
        "]\n"
        "reconnectPeriodTests.forEach((test) => {\n"
        "  it(`waits ${test.period}ms`, () => {})\n"
        "})\n"
        "for (const t of reconnectPeriodTests) {\n"
        "  console.log(t.period)\n"
        "}\n"
        "const options = { period: 1 }\n"
        "console.log(options.period)\n"
    )
    live = indexed_tree(tmp_path / "repo", {
        "test/abstract_client.ts": test,
        "src/keepalive.ts": "export class KeepaliveManager {\n  period = 0\n}\n",
    })
    for needle, target in (("test.period", 1), ("t.period", 1), ("options.period", 10)):
        n = _line(test, needle)
        _, found = live.resolve("test/abstract_client.ts", n, test.splitlines()[n].index(needle) + len(needle) - 1)
        assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [("test/abstract_client.ts", target)], needle


def test_a_javascript_file_beside_them_still_resolves_its_locals(tmp_path):
    # the TS-only binding patterns (types declared in a function) are no JS query
    live = indexed_tree(tmp_path / "repo", {
        "src/lib/client.ts": CLIENT,
        "src/lib/server.ts": OTHER,
        "test/browser/server.js": (
            'import MqttClient from "../../src/lib/client"\n\n'
            "function start() {\n  const client = new MqttClient()\n  client.reconnect()\n}\n"
        ),
    })
    _, found = live.resolve("test/browser/server.js", 4, len("  client.re"))
    assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [at("public reconnect()")]


def test_a_type_through_a_namespace_that_re_exports_a_module(tmp_path):
    # MQTT.js: src/index.ts `import * as mqtt from './mqtt'; export default mqtt`, and
    # src/mqtt.ts `export * from './lib/client'`: `mqtt.IClientOptions` in the tests
    test = (
        'import mqtt from "../src"\n\n'
        "const opts: mqtt.IClientOptions = {\n  host: 'localhost',\n}\n"
    )
    live = indexed_tree(tmp_path / "repo", {
        "src/lib/client.ts": CLIENT,
        "src/lib/server.ts": OTHER + "export interface IClientOptions {\n  host?: string\n}\n",
        "src/mqtt.ts": "export * from './lib/client'\n",
        "src/index.ts": "import * as mqtt from './mqtt'\n\nexport default mqtt\nexport * from './mqtt'\n",
        "test/client.ts": test,
    })
    _, found = live.resolve("test/client.ts", 3, len("  ho"))
    assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [("src/lib/client.ts", _line(CLIENT, "host?: string"))]


def test_references_of_a_property_include_the_interface_member_it_implements(tmp_path):
    # bullmq: `class Job implements MinimalJob`; code typed by the interface reads `job.id`
    # (tsserver lists those among Job.id's references); a sibling implementer's are not
    live = indexed_tree(tmp_path / "repo", {
        "src/interfaces/minimal-job.ts": "export interface MinimalJob {\n  id?: string\n}\n",
        "src/classes/job.ts": (
            'import { MinimalJob } from "../interfaces/minimal-job"\n\n'
            "export class Job implements MinimalJob {\n  id?: string\n}\n"
        ),
        "src/classes/flow-job.ts": (
            'import { MinimalJob } from "../interfaces/minimal-job"\n\n'
            "export class FlowJob implements MinimalJob {\n  id?: string\n}\n"
            "export function flowId(f: FlowJob): string | undefined {\n  return f.id\n}\n"
        ),
        "src/classes/backend.ts": (
            'import { MinimalJob } from "../interfaces/minimal-job"\n\n'
            "export function jobId(job: MinimalJob): string | undefined {\n  return job.id\n}\n"
        ),
    })
    from code_intel.lsp_server.references import references_at

    answer = references_at(live, "src/classes/job.ts", 3, 3)
    assert ("src/classes/backend.ts", 3) in [(r.path, r.reference.start_line) for r in answer.resolved]
    assert ("src/classes/flow-job.ts", 6) not in [(r.path, r.reference.start_line) for r in answer.resolved]
    assert ("src/interfaces/minimal-job.ts", 1) in [(t.path, t.symbol.selection_range.start.line) for t in answer.targets]


def test_a_listener_of_an_overloaded_event_signature(tmp_path):
    # got: `on: GotEventFunction<this>` with one call signature per event name
    test = (
        'import { Request } from "../source/request"\n\n'
        "new Request().on('downloadProgress', (progress) => progress.percent)\n"
    )
    live = indexed_tree(tmp_path / "repo", {
        "source/request.ts": (
            "export type Progress = {\n  percent: number\n}\n"
            "export type Response = {\n  percent: string\n}\n\n"
            "export interface GotEventFunction<T> {\n"
            "  (name: 'response', listener: (response: Response) => void): T\n"
            "  (name: 'downloadProgress', listener: (progress: Progress) => void): T\n"
            "}\n\n"
            "export class Request {\n  on!: GotEventFunction<this>\n}\n"
        ),
        "test/progress.ts": test,
    })
    _, found = live.resolve("test/progress.ts", 2, len(test.splitlines()[2]) - 3)
    assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [("source/request.ts", 1)]


def test_a_named_import_is_a_name_in_the_module_not_a_file_of_that_name(tmp_path):
    # oclif: `import {parse} from '../../src/parser'` is src/parser/index.ts' function
    # `parse`, not the module src/parser/parse.ts; `import * as parser from
    # '../../src/parser/parse'` is that module
    test = (
        "import {parse} from '../src/parser'\n"
        "import * as parser from '../src/parser/parse'\n\n"
        "parse(['--foo'], {})\n"
        "parser.Parser\n"
    )
    live = indexed_tree(tmp_path / "repo", {
        "src/parser/parse.ts": "export class Parser {\n  parse(): void {}\n}\n",
        "src/parser/index.ts": (
            "import {Parser} from './parse'\n\n"
            "export async function parse(argv: string[], options: object): Promise<void> {\n"
            "  new Parser().parse()\n}\n"
        ),
        "test/parse.test.ts": test,
    })
    _, found = live.resolve("test/parse.test.ts", 3, 2)
    assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [("src/parser/index.ts", 2)]
    _, found = live.resolve("test/parse.test.ts", 4, 10)
    assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [("src/parser/parse.ts", 0)]


def test_a_namespace_re_exported_by_the_package_entry(tmp_path):
    # oclif: src/index.ts `export * as Args from './args'`; tests `import {Args} from '../src'`
    test = "import {Args} from '../src'\n\nconst argOne = Args.string()\n"
    live = indexed_tree(tmp_path / "repo", {
        "src/args.ts": "export function string(): string {\n  return ''\n}\n",
        "src/flags.ts": "export function string(): string {\n  return ''\n}\n",
        "src/index.ts": "export * as Args from './args'\nexport * as Flags from './flags'\n",
        "test/parse.test.ts": test,
    })
    _, found = live.resolve("test/parse.test.ts", 2, len("const argOne = Args.st"))
    assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [("src/args.ts", 0)]


def test_nested_namespaces_and_static_this(tmp_path):
    # oclif: `Command.Arg.Any` / `Command.Flag.Any` (namespaces in a namespace), and
    # `this.rootPlugin` in `static get rootPlugin()` (the static member, not the field)
    command = (
        "export namespace Command {\n"
        "  export namespace Flag {\n    export type Any = string\n  }\n"
        "  export namespace Arg {\n    export type Any = number\n  }\n"
        "}\n"
    )
    config = (
        "export class Config {\n"
        "  private rootPlugin!: string\n"
        "  static get rootPlugin(): string | undefined {\n    return this.rootPlugin\n  }\n"
        "  name(): string {\n    return this.rootPlugin\n  }\n"
        "}\n"
    )
    live = indexed_tree(tmp_path / "repo", {
        "src/command.ts": command,
        "src/config.ts": config,
        "src/formatter.ts": "import {Command} from './command'\n\nexport type Data = {args: Command.Arg.Any[]}\n",
    })
    _, found = live.resolve("src/formatter.ts", 2, len("export type Data = {args: Command.Arg.A"))
    assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [("src/command.ts", 5)]
    _, found = live.resolve("src/config.ts", 3, len("    return this.ro"))
    assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [("src/config.ts", 2)]
    _, found = live.resolve("src/config.ts", 6, len("    return this.ro"))
    assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [("src/config.ts", 1)]


def test_a_namespace_imports_members_are_its_exports_not_files_beside_it(tmp_path):
    # oclif: `import * as Parser from './parser'` then `Parser.parse(…)`: index.ts' function
    live = indexed_tree(tmp_path / "repo", {
        "src/parser/parse.ts": "export class Parser {\n  parse(): void {}\n}\n",
        "src/parser/index.ts": "export async function parse(argv: string[]): Promise<void> {}\n",
        "src/command.ts": "import * as Parser from './parser'\n\nawait Parser.parse([])\n",
    })
    _, found = live.resolve("src/command.ts", 2, len("await Parser.pa"))
    assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [("src/parser/index.ts", 0)]
