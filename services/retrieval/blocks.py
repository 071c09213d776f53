"""Tenant blocks on disk, so the first query of a tenant in a process reads one block, not the
vector store and every chunk's text.

A block file holds what `TenantBlock` holds (vectors as one contiguous float32 array, the texts,
the inverted index of services/retrieval/lexicon.py) for exactly one chunk list: the tenant's
chunks in one index version at one generation (IndexTenantState, which every write or removal of
a tenant's chunks moves in the same SQL transaction). A query reads the generation from SQL and
only ever loads the file of that generation, so a sync, publish or revoke that changed the chunk
list makes every older file unusable at once. An older file is only a starting point for the
next one: its rows are kept where SQL still lists the chunk with the same content and title, the
rest is fetched again (`BlockBuilder.block`).

Files are written to a temporary directory and renamed into place, so a reader sees a complete
block or none; each is read whole (texts stay encoded until a row is read). Eligibility is never
stored here: the block holds every chunk of the tenant's index, and SQL selects and re-verifies
per query as before.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import shutil
import uuid
from collections.abc import Iterator, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any, overload
from urllib.parse import quote

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
from sqlalchemy import select

from services.db.engine import Database
from services.db.models import DocumentVersion
from services.db.models_retrieval import IndexTenantState
from services.language import tokens as text_analysis
from services.retrieval import caches as caches_module
from services.retrieval import lexicon as lexicon_module
from services.retrieval.caches import Payload, TenantBlock
from services.retrieval.eligibility import (
    ActiveIndex,
    ChunkTable,
    active_index,
    load_chunk_table,
)
from services.retrieval.lexicon import Lexicon
from services.retrieval.vectorstore import VectorStore

log = logging.getLogger(__name__)

FORMAT = 3  # 2: texts as raw UTF-8 files beside their ends; 3: each row's script


def _analysis() -> str:
    """What a block's rows were analysed with: this format, the code that tokenises, normalises
    and indexes a text, and the segmenter and converter versions. A block written by other code
    is never read (its postings might not be what this code would build)."""
    digest = hashlib.blake2b(str(FORMAT).encode(), digest_size=8)
    for module in (text_analysis, lexicon_module, caches_module):
        digest.update(Path(str(module.__file__)).read_bytes())
    for package in ("jieba", "opencc", "lemminflect"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            digest.update(f"{package}={metadata.version(package)}".encode())
    return digest.hexdigest()


ANALYSIS = _analysis()

_COLUMNS = ("texts", "titles", "hashes", "matched")
_POSTINGS = ("tf", "has")
_ID_BYTES = 100  # a chunk id string and its row_of entry, roughly


class Strings(Sequence[str]):
    """Strings stored end to end as UTF-8, decoded one at a time when read: a query reads the
    texts of its candidates, not of the tenant."""

    def __init__(self, data: bytes, ends: npt.NDArray[np.int64]) -> None:
        self.data = data
        self.ends = ends

    @classmethod
    def encode(cls, strings: Sequence[str]) -> Strings:
        encoded = [s.encode("utf-8") for s in strings]
        return cls(b"".join(encoded), np.cumsum([len(e) for e in encoded], dtype=np.int64))

    def __len__(self) -> int:
        return len(self.ends)

    @overload
    def __getitem__(self, row: int) -> str: ...
    @overload
    def __getitem__(self, row: slice) -> list[str]: ...
    def __getitem__(self, row: int | slice) -> str | list[str]:
        if isinstance(row, slice):
            return [self[i] for i in range(*row.indices(len(self)))]
        if row < 0:
            row += len(self)
        start = int(self.ends[row - 1]) if row else 0
        return self.data[start : int(self.ends[row])].decode("utf-8")

    def __iter__(self) -> Iterator[str]:
        return (self[i] for i in range(len(self)))

    @property
    def nbytes(self) -> int:
        return len(self.data) + int(self.ends.nbytes)


class BlockFiles:
    """`<root>/<index version>/<tenant>/<generation>/`, one directory per persisted block."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _tenant_dir(self, index_version: str, tenant_id: str) -> Path:
        return self.root / quote(index_version, safe="") / quote(tenant_id, safe="")

    def generations(self, index_version: str, tenant_id: str) -> list[int]:
        """The generations written for the tenant, newest first."""
        directory = self._tenant_dir(index_version, tenant_id)
        if not directory.is_dir():
            return []
        suffix = f".{ANALYSIS}"
        names = (p.name.removesuffix(suffix) for p in directory.iterdir())
        return sorted((int(n) for n in names if n.isdigit()), reverse=True)

    def _block_dir(self, index_version: str, tenant_id: str, generation: int) -> Path:
        return self._tenant_dir(index_version, tenant_id) / f"{generation}.{ANALYSIS}"

    def save(self, index_version: str, tenant_id: str, generation: int, block: TenantBlock) -> None:
        """Write the block as the tenant's chunk list at `generation`; one already there stays."""
        directory = self._tenant_dir(index_version, tenant_id)
        target = self._block_dir(index_version, tenant_id, generation)
        if target.exists():
            return
        staging = directory / f".tmp-{uuid.uuid4().hex}"
        staging.mkdir(parents=True)
        try:
            _write(staging, block)
            staging.rename(target)
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)
            if not target.exists():  # not a concurrent writer's block: a real failure
                raise

    def load(self, index_version: str, tenant_id: str, generation: int) -> TenantBlock | None:
        """The block written for `generation`, one read per file; None when there is none (or
        it was removed while being read)."""
        directory = self._block_dir(index_version, tenant_id, generation)
        try:
            return _read(directory)
        except (OSError, ValueError, KeyError) as exc:
            if directory.exists():
                log.warning("retrieval block %s unreadable: %s", directory, exc)
            return None

    def prune(self, index_version: str, tenant_id: str, *, keep: int) -> None:
        """Remove the tenant's other blocks (other generations, other code), texts included."""
        kept = self._block_dir(index_version, tenant_id, keep)
        for block_dir in self._tenant_dir(index_version, tenant_id).iterdir():
            if block_dir != kept and not block_dir.name.startswith(".tmp-"):
                shutil.rmtree(block_dir)

    def drop_version(self, index_version: str) -> None:
        shutil.rmtree(self.root / quote(index_version, safe=""), ignore_errors=True)

    def holding(self, tenant_id: str, chunk_prefix: str) -> list[Path]:
        """The tenant's persisted blocks (any index version) with a chunk id starting with
        `chunk_prefix`."""
        found: list[Path] = []
        if not self.root.is_dir():
            return found
        for version_dir in self.root.iterdir():
            tenant_dir = version_dir / quote(tenant_id, safe="")
            if not tenant_dir.is_dir():
                continue
            for block_dir in tenant_dir.iterdir():
                ids_file = block_dir / "ids.json"
                if not block_dir.name.startswith(".tmp-") and ids_file.exists():
                    ids = json.loads(ids_file.read_text(encoding="utf-8"))
                    if any(c.startswith(chunk_prefix) for c in ids):
                        found.append(block_dir)
        return found

    def forget(self, tenant_id: str, chunk_prefix: str) -> int:
        """Remove every persisted block mentioning the chunks; how many still do after."""
        for block_dir in self.holding(tenant_id, chunk_prefix):
            shutil.rmtree(block_dir, ignore_errors=True)
        return len(self.holding(tenant_id, chunk_prefix))


def _write(directory: Path, block: TenantBlock) -> None:
    terms, keys, tf, has, vocabulary_bytes = block.lexicon.parts()
    matrix = block.matrix if block.matrix.size else np.zeros((0, block.dimension), np.float32)
    np.save(directory / "vectors.npy", np.ascontiguousarray(matrix, dtype=np.float32))
    np.save(directory / "lengths.npy", block.lexicon.lengths.astype(np.uint32))
    np.save(directory / "english.npy", block.english.astype(np.bool_))
    for name in _COLUMNS:
        strings = Strings.encode(getattr(block, name))
        (directory / f"{name}.bin").write_bytes(strings.data)
        np.save(directory / f"{name}.ends.npy", strings.ends)
    for name, matrix_ in zip(_POSTINGS, (tf, has), strict=True):
        for part in ("data", "indices", "indptr"):
            np.save(directory / f"{name}.{part}.npy", getattr(matrix_, part))
    (directory / "ids.json").write_text(json.dumps(block.ids), encoding="utf-8")
    (directory / "vocabulary.json").write_text(
        json.dumps({"terms": terms, "keys": keys}, ensure_ascii=False), encoding="utf-8"
    )
    meta = {
        "format": FORMAT,
        "dimension": block.dimension,
        "rows": len(block.ids),
        "vocabulary_bytes": vocabulary_bytes,
        "shapes": {"tf": list(tf.shape), "has": list(has.shape)},
    }
    (directory / "meta.json").write_text(json.dumps(meta), encoding="utf-8")


def _read(directory: Path) -> TenantBlock:
    meta = json.loads((directory / "meta.json").read_text(encoding="utf-8"))
    if meta["format"] != FORMAT:
        raise ValueError(f"block format {meta['format']}, this code reads {FORMAT}")

    def array(name: str) -> Any:
        # Read whole, not memory-mapped: every slice of a np.memmap goes through its Python
        # __getitem__ (~7 µs measured per text read), and each mapping keeps a file descriptor
        # open for as long as its tenant's block is cached (a dozen per block).
        return np.load(directory / f"{name}.npy")

    def postings(name: str) -> sp.csc_array:
        parts = (array(f"{name}.data"), array(f"{name}.indices"), array(f"{name}.indptr"))
        return sp.csc_array(parts, shape=tuple(meta["shapes"][name]))

    vocabulary = json.loads((directory / "vocabulary.json").read_text(encoding="utf-8"))
    ids: list[str] = json.loads((directory / "ids.json").read_text(encoding="utf-8"))
    if len(ids) != meta["rows"]:
        raise ValueError(f"{len(ids)} ids for {meta['rows']} rows")
    texts, titles, hashes, matched = (
        Strings((directory / f"{c}.bin").read_bytes(), array(f"{c}.ends")) for c in _COLUMNS
    )
    matrix = array("vectors")
    english = array("english").astype(np.bool_)
    if len(english) != len(ids):
        raise ValueError(f"{len(english)} scripts for {len(ids)} rows")
    return TenantBlock(
        dimension=int(meta["dimension"]),
        ids=ids,
        row_of={chunk_id: row for row, chunk_id in enumerate(ids)},
        texts=texts,
        titles=titles,
        hashes=hashes,
        matched=matched,
        english=english,
        matrix=matrix if len(ids) else np.zeros((0, 0), dtype=np.float32),
        lexicon=Lexicon.restore(
            terms=vocabulary["terms"],
            keys=vocabulary["keys"],
            lengths=array("lengths"),
            tf=postings("tf"),
            has=postings("has"),
            vocabulary_bytes=int(meta["vocabulary_bytes"]),
        ),
        object_bytes=sum(c.nbytes for c in (texts, titles, hashes, matched)) + _ID_BYTES * len(ids),
    )


class BlockBuilder:
    """A tenant's block for exactly one chunk list: read from disk when it was written, else
    made from the newest earlier one and what changed since, then written for the next process."""

    def __init__(self, *, db: Database, store: VectorStore, files: BlockFiles | None) -> None:
        self._db = db
        self._store = store
        self.files = files

    def block(self, active: ActiveIndex, tenant_id: str, table: ChunkTable) -> TenantBlock:
        iv = active.index_version
        if self.files is not None:
            loaded = self.files.load(iv, tenant_id, table.generation)
            if loaded is not None and _holds_exactly(loaded, table):
                return loaded
        block = self._reusable(active, tenant_id, table) or TenantBlock(dimension=active.dimension)
        missing = [c for c in table.ids if c not in block.row_of]
        if missing:  # one read of the store and one of SQL for all of them
            block.add(self.fetch(active, tenant_id, table, missing))
        if self.files is not None and _holds_exactly(block, table):
            self._save(active, tenant_id, table, block)
        return block

    def persist(self, space: str, tenant_id: str) -> None:
        """Write the tenant's block for its current chunk list (after a sync), unless written."""
        if self.files is None:
            return
        with self._db.read() as session:
            found = active_index(session, space, tenant_id)
            if found is None:
                return
            active, generation = found
            if generation in self.files.generations(active.index_version, tenant_id):
                self.files.prune(active.index_version, tenant_id, keep=generation)
                return
            table = load_chunk_table(session, active.index_version, tenant_id, generation)
        self.block(active, tenant_id, table)

    def _reusable(
        self, active: ActiveIndex, tenant_id: str, table: ChunkTable
    ) -> TenantBlock | None:
        """The newest earlier block without the rows SQL no longer lists with the same content
        hash and title (a changed title is re-embedded under the same chunk id)."""
        if self.files is None:
            return None
        for generation in self.files.generations(active.index_version, tenant_id):
            earlier = self.files.load(active.index_version, tenant_id, generation)
            if earlier is None:
                continue
            titles = self._titles(tenant_id)
            stale = set()
            for row, chunk_id in enumerate(earlier.ids):
                listed = table.rows.get(chunk_id)
                if (
                    listed is None
                    or listed.indexed_hash != earlier.hashes[row]
                    or titles.get((listed.document_id, listed.version)) != earlier.titles[row]
                ):
                    stale.add(chunk_id)
            return earlier.without(stale) if stale else earlier
        return None

    def _titles(self, tenant_id: str) -> dict[tuple[str, int], str]:
        with self._db.read() as session:
            rows = session.execute(
                select(
                    DocumentVersion.document_id, DocumentVersion.version, DocumentVersion.title
                ).where(DocumentVersion.tenant_id == tenant_id)
            )
            return {(d, v): t for d, v, t in rows}

    def _save(
        self, active: ActiveIndex, tenant_id: str, table: ChunkTable, block: TenantBlock
    ) -> None:
        """Written only if the chunk list did not move while the block was read: then every
        payload is that generation's."""
        assert self.files is not None
        with self._db.read() as session:
            now = session.scalar(
                select(IndexTenantState.generation).where(
                    IndexTenantState.index_version == active.index_version,
                    IndexTenantState.tenant_id == tenant_id,
                )
            )
        generation = table.generation
        if int(now or 0) != generation:
            return
        try:
            self.files.save(active.index_version, tenant_id, generation, block)
            self.files.prune(active.index_version, tenant_id, keep=generation)
        except OSError as exc:  # a read-only home still serves, from memory
            log.warning("retrieval block of %s not written: %s", tenant_id, exc)

    def fetch(
        self, active: ActiveIndex, tenant_id: str, table: ChunkTable, chunk_ids: list[str]
    ) -> list[Payload]:
        """Vectors from the store, texts and titles sliced from the SQL bodies."""
        records = self._store.get(active.collection, ids=chunk_ids, embeddings=True)
        documents = sorted({table.rows[r.id].document_id for r in records if r.id in table.rows})
        with self._db.read() as session:
            bodies = {
                (doc_id, version): (title, body)
                for doc_id, version, title, body in session.execute(
                    select(
                        DocumentVersion.document_id,
                        DocumentVersion.version,
                        DocumentVersion.title,
                        DocumentVersion.body,
                    ).where(
                        DocumentVersion.tenant_id == tenant_id,
                        DocumentVersion.document_id.in_(documents),
                    )
                )
            }
        payloads = []
        for record in records:
            row = table.rows.get(record.id)
            source = bodies.get((row.document_id, row.version)) if row else None
            if row is None or source is None or record.embedding is None:
                continue  # gone meanwhile: it will not be eligible either
            title, body = source
            payloads.append(
                Payload(
                    chunk_id=record.id,
                    vector=record.embedding,
                    text=body[row.start : row.end],
                    title=title,
                    content_hash=str(record.metadata.get("content_hash", "")),
                )
            )
        return payloads


def _holds_exactly(block: TenantBlock, table: ChunkTable) -> bool:
    return len(block.ids) == len(table.rows) and all(c in block.row_of for c in table.ids)
