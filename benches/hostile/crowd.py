# 24 idle WebSocket clients and 24 sockets trickling a handshake at 1 byte/s, then: how long a
# new client takes to connect and get a reply. Repeated a few times.
import asyncio, socket, sys, time, websockets
async def trickle(host, port, stop):
    r, w = await asyncio.open_connection(host, port)
    req = b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    i = 0
    while not stop.is_set():
        try:
            w.write(req[i % len(req):i % len(req) + 1]); await w.drain()
        except Exception:
            return
        i += 1
        await asyncio.sleep(1)
async def main():
    url = sys.argv[1]; host, port = url[5:].split(':'); port = int(port)
    idle = [await websockets.connect(url) for _ in range(24)]
    stop = asyncio.Event()
    ts = [asyncio.create_task(trickle(host, port, stop)) for _ in range(24)]
    await asyncio.sleep(2)
    for _ in range(5):
        t = time.perf_counter()
        async with websockets.connect(url) as ws:
            await ws.send('{"type":"clear"}'); reply = await ws.recv()
        print(f"new client served in {(time.perf_counter()-t)*1000:.1f} ms: {reply}")
        await asyncio.sleep(0.5)
    stop.set()
    for w in idle: await w.close()
asyncio.run(main())
