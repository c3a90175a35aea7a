"""TypeScript generics bound by the code that uses them, written the way a NestJS DDD
app writes them: an entity reads `this.props` declared `props: EntityProps` in a generic
base two classes up (`UserEntity extends AggregateRoot<UserProps>`, `AggregateRoot<P>
extends Entity<P>`), a value object reads `this.props` typed through a conditional alias,
and a handler reads `props.country` typed `DomainEventProps<Event>` (`Omit<T, 'id'> &
{…}`). Real tree-sitter, real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex
from code_intel.lsp_server.ts_generics import applied, declared_parameters, exposed, heritage

from tests.unit.source_tree import indexed_tree, target_lines

FILES = {
    "src/ddd/entity.base.ts": (
        "export abstract class Entity<EntityProps> {\n"
        "  protected readonly props: EntityProps;\n"
        "  getProps(): EntityProps {\n    return this.props;\n  }\n}\n"
    ),
    "src/ddd/aggregate-root.base.ts": (
        "import { Entity } from './entity.base';\n"
        "export abstract class AggregateRoot<EntityProps> extends Entity<EntityProps> {\n"
        "  addEvent(): void {}\n}\n"
    ),
    "src/ddd/value-object.base.ts": (
        "export interface DomainPrimitive<T> {\n  value: T;\n}\n"
        "type ValueObjectProps<T> = T extends string | number ? DomainPrimitive<T> : T;\n"
        "export abstract class ValueObject<T> {\n  protected readonly props: ValueObjectProps<T>;\n}\n"
    ),
    "src/ddd/domain-event.base.ts": (
        "export type DomainEventProps<T> = Omit<T, 'id'> & {\n  aggregateId: string;\n};\n"
        "export abstract class DomainEvent {\n  readonly id: string;\n}\n"
    ),
    "src/user/user.types.ts": (
        "export interface UserProps {\n  role: string;\n  email: string;\n}\n"
        "export interface AddressProps {\n  country: string;\n  street: string;\n}\n"
    ),
    "src/user/user.entity.ts": (
        "import { AggregateRoot } from '../ddd/aggregate-root.base';\n"
        "import { UserProps } from './user.types';\n"
        "export class UserEntity extends AggregateRoot<UserProps> {\n"
        "  get role(): string {\n    return this.props.role;\n  }\n"
        "  mail(): string {\n    return this.getProps().email;\n  }\n}\n"
    ),
    "src/user/address.ts": (
        "import { ValueObject } from '../ddd/value-object.base';\n"
        "import { AddressProps } from './user.types';\n"
        "export class Address extends ValueObject<AddressProps> {\n"
        "  get street(): string {\n    return this.props.street;\n  }\n}\n"
    ),
    "src/user/user-created.event.ts": (
        "import { DomainEvent, DomainEventProps } from '../ddd/domain-event.base';\n"
        "export class UserCreatedEvent extends DomainEvent {\n"
        "  readonly country: string;\n"
        "  constructor(props: DomainEventProps<UserCreatedEvent>) {\n"
        "    super();\n    this.country = props.country;\n    const a = props.aggregateId;\n  }\n}\n"
    ),
    # same-named members elsewhere: a guess by name cannot tell
    "src/other.ts": "export class Other {\n  role = 'x';\n  street = 'y';\n  country = 'z';\n  email = 'e';\n}\n",
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("tsgen") / "repo", FILES)


def where(live: LiveIndex, rel: str, needle: str, word: str) -> list[tuple[str, int]]:
    return target_lines(live, FILES, rel, needle, word)


def test_a_field_typed_by_a_type_parameter_bound_two_bases_up(live: LiveIndex):
    assert where(live, "src/user/user.entity.ts", "this.props.role", "role") == [("src/user/user.types.ts", 1)]


def test_a_method_returning_a_type_parameter_bound_by_extends(live: LiveIndex):
    assert where(live, "src/user/user.entity.ts", "getProps().email", "email") == [("src/user/user.types.ts", 2)]


def test_a_field_typed_through_a_conditional_alias_of_the_parameter(live: LiveIndex):
    assert where(live, "src/user/address.ts", "this.props.street", "street") == [("src/user/user.types.ts", 6)]


def test_an_alias_applied_to_a_class_exposes_its_members(live: LiveIndex):
    assert where(live, "src/user/user-created.event.ts", "props.country", "country") == [("src/user/user-created.event.ts", 2)]
    assert where(live, "src/user/user-created.event.ts", "props.aggregateId", "aggregateId") == [("src/ddd/domain-event.base.ts", 1)]


def test_type_argument_text():
    assert declared_parameters("export class A<T extends X = Y, const U> extends B<T> {") == ["T", "U"]
    assert heritage("class A<T> extends B<T[]> implements C<X>, D {") == [("B", ["T[]"]), ("C", ["X"])]
    assert exposed("Partial<Omit<T, 'a'>> & U", ["T", "U", "V"]) == ["T", "U"]
    assert exposed("Ok<T, E> | Err<T, E>", ["T", "E"]) == []
    assert applied("Map<K, Array<V>>") == ("Map", ["K", "Array<V>"])


TASK = {
    "src/task.ts": (
        "class TaskImpl<T, E> {\n"
        "  get state(): string {\n    return 'x';\n  }\n"
        "  orElse(f: (e: E) => T): Task<T, E> {\n    return this as Task<T, E>;\n  }\n}\n"
        "export interface Pending<T, E> extends Omit<TaskImpl<T, E>, 'value'> {\n  get isPending(): true;\n}\n"
        "export interface Resolved<T, E> extends Omit<TaskImpl<T, E>, 'reason'> {\n  get value(): T;\n}\n"
        "export type Task<T, E> = Pending<T, E> | Resolved<T, E>;\n"
        "export function resolved<T>(v: T): Task<T, never> {\n  return new TaskImpl() as Task<T, never>;\n}\n"
    ),
    "src/other.ts": "export class Other {\n  orElse(): void {}\n}\n",
    "test/task.test.ts": (
        "import { resolved, Task } from '../src/task';\n"
        "const t: Task<number, string> = resolved(1);\n"
        "t.orElse(() => 2);\n"
        "resolved(2).orElse(() => 3);\n"
    ),
}


@pytest.fixture(scope="module")
def task_live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("tsomit") / "repo", TASK)


def test_an_interface_built_with_omit_has_the_omitted_type_s_members(task_live: LiveIndex):
    lines = TASK["test/task.test.ts"].splitlines()
    for n in (2, 3):
        _, found = task_live.resolve("test/task.test.ts", n, lines[n].index("orElse") + 1)
        assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [("src/task.ts", 4)]


WRITTEN = {
    "src/ddd/repository.port.ts": (
        "export class Paginated<T> {\n"
        "  readonly first: T;\n"
        "  constructor(first: T) {\n    this.first = first;\n  }\n"
        "}\n"
        "export interface RepositoryPort<Entity> {\n"
        "  findOneById(id: string): Promise<Entity>;\n"
        "  findAllPaginated(): Promise<Paginated<Entity>>;\n"
        "}\n"
    ),
    "src/user/user.entity.ts": "export class UserEntity {\n  email = '';\n  delete(): void {}\n}\n",
    "src/user/user.service.ts": (
        "import { Paginated, RepositoryPort } from '../ddd/repository.port';\n"
        "import { UserEntity } from './user.entity';\n"
        "export class UserService {\n"
        "  constructor(private readonly repo: RepositoryPort<UserEntity>) {}\n"
        "  async remove(id: string, page: Paginated<UserEntity>): Promise<string> {\n"
        "    const user = await this.repo.findOneById(id);\n"
        "    user.delete();\n"
        "    return page.first.email;\n"
        "  }\n}\n"
    ),
    "src/other.ts": "export class Other {\n  email = '';\n  delete(): void {}\n}\n",
}


@pytest.fixture(scope="module")
def written_live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("tswritten") / "repo", WRITTEN)


def test_type_arguments_written_in_the_receiver_s_declared_type(written_live: LiveIndex):
    lines = WRITTEN["src/user/user.service.ts"].splitlines()

    def at(needle: str, word: str) -> list[tuple[str, int]]:
        n = next(i for i, line in enumerate(lines) if needle in line)
        _, found = written_live.resolve("src/user/user.service.ts", n, lines[n].index(needle) + needle.rindex(word) + 1)
        return [(s.path, s.symbol.selection_range.start.line) for s in found]

    assert at("page.first.email", "email") == [("src/user/user.entity.ts", 1)]  # a field typed `T`
    assert at("user.delete", "delete") == [("src/user/user.entity.ts", 2)]  # a method returning Promise<Entity>


CONDITIONAL = {
    "src/job.ts": "export class Job<T = any> {\n  getState(): string {\n    return '';\n  }\n}\n",
    "src/queue-getters.ts": (
        "import { Job } from './job';\n"
        "export class QueueGetters<JobBase extends Job = Job> {\n"
        "  getJob(id: string): Promise<JobBase | undefined> {\n    return Promise.resolve(undefined);\n  }\n}\n"
    ),
    "src/queue.ts": (
        "import { Job } from './job';\n"
        "import { QueueGetters } from './queue-getters';\n"
        "type IsAny<T> = 0 extends 1 & T ? true : false;\n"
        "export type JobBase<T> = IsAny<T> extends true\n  ? Job<T>\n  : T extends Job<any>\n    ? T\n    : Job<T>;\n"
        "export class Queue<D = any> extends QueueGetters<JobBase<D>> {}\n"
    ),
    "src/other.ts": "export class Other {\n  getState(): string {\n    return '';\n  }\n}\n",
    "test/queue.test.ts": (
        "import { Queue } from '../src/queue';\n"
        "async function f(queue: Queue) {\n"
        "  const job = await queue.getJob('1');\n"
        "  job!.getState();\n"
        "}\n"
    ),
}


@pytest.fixture(scope="module")
def conditional_live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("tscond") / "repo", CONDITIONAL)


def test_a_parameter_bound_to_a_conditional_alias_has_its_results_members(conditional_live: LiveIndex):
    # bullmq: `Queue extends QueueGetters<JobBase<…>>` with a conditional `JobBase`
    lines = CONDITIONAL["test/queue.test.ts"].splitlines()
    _, found = conditional_live.resolve("test/queue.test.ts", 3, lines[3].index("getState") + 1)
    assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [("src/job.ts", 1)]
