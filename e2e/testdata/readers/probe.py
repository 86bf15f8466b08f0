"""Connects with one Python reader of postgres:// URIs (e2e TestURIReaders).

    python3 probe.py READER < uris     # one URI a line
    python3 probe.py versions

READER is psycopg2, psycopg, sqlalchemy, asyncpg, databases, pydantic or
django-environ. For each URI
it prints one JSON line: {"ok": true, "socket": B, "dir": D} when the reader
connected and ran QUERY (socket: inet_client_addr() IS NULL; dir: the
server's unix_socket_directories, so the test knows which server answered),
or {"ok": false, "error": "..."} when it refused or failed. The URI is handed
to the library exactly as the application would: nothing here parses it.
"""

import asyncio
import json
import sys

QUERY = "SELECT inet_client_addr() IS NULL, current_setting('unix_socket_directories')"


def psycopg2_(uri):
    import psycopg2

    with psycopg2.connect(uri) as conn, conn.cursor() as cur:
        cur.execute(QUERY)
        return cur.fetchone()


def psycopg_(uri):
    import psycopg

    with psycopg.connect(uri) as conn:
        return conn.execute(QUERY).fetchone()


def sqlalchemy_(uri):
    import sqlalchemy

    if "+asyncpg" in uri.split("://", 1)[0]:
        from sqlalchemy.ext.asyncio import create_async_engine

        async def run():
            engine = create_async_engine(uri)
            try:
                async with engine.connect() as conn:
                    return (await conn.execute(sqlalchemy.text(QUERY))).fetchone()
            finally:
                await engine.dispose()

        return asyncio.run(run())
    engine = sqlalchemy.create_engine(uri)
    try:
        with engine.connect() as conn:
            return conn.execute(sqlalchemy.text(QUERY)).fetchone()
    finally:
        engine.dispose()


def asyncpg_(uri):
    import asyncpg

    async def run():
        conn = await asyncpg.connect(uri, timeout=10)
        try:
            return tuple(await conn.fetchrow(QUERY))
        finally:
            await conn.close()

    return asyncio.run(run())


def pydantic_(uri):
    # A FastAPI settings field typed PostgresDsn: the value must validate,
    # then the application connects with str(field) (here through
    # SQLAlchemy, as the full-stack FastAPI template does).
    import pydantic

    class Settings(pydantic.BaseModel):
        database_url: pydantic.PostgresDsn

    return sqlalchemy_(str(Settings(database_url=uri).database_url))


def django_environ_(uri):
    # A Django settings module with DATABASES = {"default": env.db("X")}:
    # django-environ's Env.db_url_config turns the URL into the DATABASES
    # entry (HOST from the authority, the query into OPTIONS), and Django's
    # postgresql backend connects with psycopg2 (HOST, when not empty,
    # overrides OPTIONS' host). Debian's django-environ 0.4.4 still names
    # the engine postgresql_psycopg2, which Django 3.0 removed; releases
    # since name django.db.backends.postgresql, which is used here. Host,
    # port and OPTIONS, which decide the transport, are the library's.
    import django
    import environ
    from django.conf import settings
    from django.db.utils import ConnectionHandler

    if not settings.configured:
        settings.configure(DATABASES={}, USE_TZ=True)
        django.setup()
    cfg = environ.Env.db_url_config(uri)
    cfg["ENGINE"] = cfg["ENGINE"].replace("postgresql_psycopg2", "postgresql")
    conn = ConnectionHandler({"default": cfg})["default"]
    try:
        with conn.cursor() as cur:
            cur.execute(QUERY)
            return cur.fetchone()
    finally:
        conn.close()


def databases_(uri):
    # encode/databases as FastAPI samples use it: Database(DATABASE_URL),
    # connect, fetch_one. Its PostgresBackend parses the URL itself
    # (DatabaseURL) and hands hostname and port to asyncpg.create_pool.
    import databases

    async def run():
        db = databases.Database(uri)
        await db.connect()
        try:
            row = await db.fetch_one(QUERY)
            return row[0], row[1]  # a Record iterates its keys
        finally:
            await db.disconnect()

    return asyncio.run(asyncio.wait_for(run(), 15))


READERS = {
    "databases": databases_,
    "psycopg2": psycopg2_,
    "psycopg": psycopg_,
    "sqlalchemy": sqlalchemy_,
    "asyncpg": asyncpg_,
    "pydantic": pydantic_,
    "django-environ": django_environ_,
}


def versions():
    out = {}
    for mod in ["psycopg2", "psycopg", "sqlalchemy", "asyncpg", "pydantic", "django", "databases"]:
        try:
            m = __import__(mod)
        except ImportError:
            continue
        v = getattr(m, "__version__", None) or str(getattr(m, "VERSION", ""))
        out[mod] = v.split(" ")[0]
    # django-environ's module (environ) has no __version__: its
    # distribution's metadata has.
    try:
        import importlib.metadata

        import environ  # noqa: F401

        out["django-environ"] = importlib.metadata.version("django-environ")
    except Exception:
        pass
    return out


def main():
    if sys.argv[1] == "versions":
        print(json.dumps(versions()))
        return
    read = READERS[sys.argv[1]]
    for line in sys.stdin:
        uri = line.rstrip("\n")
        try:
            socket, dirs = read(uri)
            res = {"ok": True, "socket": bool(socket), "dir": dirs}
        except Exception as e:  # every refusal is a result
            res = {"ok": False, "error": (type(e).__name__ + ": " + str(e)).strip()}
        print(json.dumps(res), flush=True)


main()
