import { testApp } from './support/helpers.js'
const N = Number(process.env.N ?? 40)
for (let i = 0; i < 5; i++) await (await testApp({ closedBy: 'caller' })).close()
const t0 = process.cpuUsage(); const w0 = performance.now()
for (let i = 0; i < N; i++) { const app = await testApp({ closedBy: 'caller' }); await app.close() }
const c = process.cpuUsage(t0)
console.log('per app CPU ms', ((c.user + c.system) / 1000 / N).toFixed(1), 'wall ms', ((performance.now() - w0) / N).toFixed(1))
