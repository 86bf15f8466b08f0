// Connects with one Node.js reader of postgres:// URIs (e2e TestURIReaders),
// from the versions package-lock.json pins (npm ci beside this file).
//
//     node probe.js READER < uris     # one URI a line
//     node probe.js versions
//
// READER is pg, pg-connection-string, knex, postgres (postgres.js),
// sequelize, typeorm (0.3), typeorm1 (1.x) or whatwg-url (new URL() as an
// application's own check, then pg). Each URI is handed to the library the
// way its documentation shows (connectionString, url, the first argument);
// one JSON line per URI: {"ok":true,"socket":B,"dir":D} or
// {"ok":false,"error":"..."}.
'use strict'
const fs = require('fs')
const path = require('path')
const readline = require('readline')

// Results go to stdout alone: libraries log to console (knex's "Acquire
// connection error"), so console goes to stderr.
const out = (line) => fs.writeSync(1, line + '\n')
console.log = console.info = console.warn = console.error

const QUERY = "SELECT inet_client_addr() IS NULL AS socket, current_setting('unix_socket_directories') AS dir"

async function viaPg(config) {
  const { Client } = require('pg')
  const c = new Client(config)
  await c.connect()
  try {
    return (await c.query(QUERY)).rows[0]
  } finally {
    await c.end()
  }
}

const readers = {
  pg: (uri) => viaPg({ connectionString: uri }),
  // What knex, slonik and others do: parse, then hand the object to pg.
  'pg-connection-string': (uri) => viaPg(require('pg-connection-string').parse(uri)),
  knex: async (uri) => {
    const db = require('knex')({ client: 'pg', connection: uri })
    try {
      return (await db.raw(QUERY)).rows[0]
    } finally {
      await db.destroy()
    }
  },
  postgres: async (uri) => {
    const sql = require('postgres')(uri, { connect_timeout: 10, onnotice: () => {} })
    try {
      return (await sql.unsafe(QUERY))[0]
    } finally {
      await sql.end({ timeout: 1 })
    }
  },
  sequelize: async (uri) => {
    const { Sequelize, QueryTypes } = require('sequelize')
    const s = new Sequelize(uri, { logging: false })
    try {
      return (await s.query(QUERY, { type: QueryTypes.SELECT }))[0]
    } finally {
      await s.close()
    }
  },
  typeorm: (uri) => typeorm(require('typeorm'), uri),
  typeorm1: (uri) => typeorm(require('typeorm1'), uri),
  'whatwg-url': (uri) => {
    new URL(uri) // throws "Invalid URL" like an application's own check
    return viaPg({ connectionString: uri })
  },
}

async function typeorm(lib, uri) {
  const ds = new lib.DataSource({ type: 'postgres', url: uri, connectTimeoutMS: 10000 })
  await ds.initialize()
  try {
    return (await ds.query(QUERY))[0]
  } finally {
    await ds.destroy()
  }
}

function versions() {
  const v = {}
  for (const [name, dir] of [['pg', 'pg'], ['pg-connection-string', 'pg-connection-string'], ['knex', 'knex'], ['postgres', 'postgres'],
    ['sequelize', 'sequelize'], ['typeorm', 'typeorm'], ['typeorm1', 'typeorm1'], ['deepmerge', 'deepmerge']]) {
    try {
      // Read the file: packages with "exports" (postgres, typeorm) refuse
      // require('NAME/package.json').
      v[name] = JSON.parse(fs.readFileSync(path.join(__dirname, 'node_modules', dir, 'package.json'))).version
    } catch (e) {}
  }
  v.node = process.versions.node.split('.')[0] // the machine's Node.js, by major version
  return v
}

async function main() {
  if (process.argv[2] === 'versions') {
    out(JSON.stringify(versions()))
    return
  }
  const read = readers[process.argv[2]]
  if (!read) throw new Error('unknown reader ' + process.argv[2])
  for await (const uri of readline.createInterface({ input: process.stdin })) {
    let res
    try {
      let timer
      const row = await Promise.race([read(uri), new Promise((_, rej) => { timer = setTimeout(() => rej(new Error('no answer in 20 s')), 20000) })])
      clearTimeout(timer)
      res = { ok: true, socket: row.socket === true || row.socket === 't', dir: row.dir }
    } catch (e) {
      res = { ok: false, error: String((e && e.stack && e.stack.split('\n')[0]) || e) }
    }
    out(JSON.stringify(res))
  }
  process.exit(0) // pools a refused reader left behind must not keep the process alive
}

main().catch((e) => { console.error(e); process.exit(1) })
