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
