using System.IO.Compression;
using System.Text;
using EtwSerializerProfiler.Analyzer.Input;

namespace EtwSerializerProfiler.Tests.Robustness;

/// <summary>One damaged input and the esp commands that read it.</summary>
/// <param name="Kind">The family it belongs to, for the counts (trace cut, byte flip, zip, cache, tags, ...).</param>
/// <param name="Calls">Each call: verb, then its arguments.</param>
/// <param name="Cleanup">Removes the input once its calls ran (null when the generator reuses the file).</param>
public sealed record DamagedInput(string Kind, string Name, IReadOnlyList<string[]> Calls, Action? Cleanup)
{
    /// <summary>What this input in particular must give, beyond what every input must (no crash, documented code, bounded).</summary>
    public Action<VerbOutcome>? Expect { get; init; }
}

/// <summary>
/// Generates damaged inputs from one real recording, with a fixed seed: the trace cut at every block boundary and at
/// random offsets, bytes flipped anywhere and in the header, random bytes, an empty file, the trace joined to itself;
/// zips that are empty, nested, hold two traces or entries that would escape; stale, foreign and corrupt .etlx caches;
/// malformed stack tags files, results.json and manifest.json; damaged heap snapshots. Inputs are made one at a time
/// (a dump is 140 MB: damage to it is done in place and undone) and removed after use. <paramref name="scale"/>
/// multiplies the random families for the longer run (scripts/measure/damaged-inputs.sh).
/// </summary>
public sealed class DamagedInputs(DamagedInputSource source, int seed, int scale)
{
    private readonly Random _random = new(seed);
    private readonly byte[] _trace = File.ReadAllBytes(source.Folder.Trace);

    private string Base => source.Folder.Path;

    public IEnumerable<DamagedInput> All() =>
        TraceBytes().Concat(Zips()).Concat(Caches()).Concat(TagFiles()).Concat(Companions()).Concat(Dumps());

    // ---- the trace's bytes ------------------------------------------------------------------------------------

    public IEnumerable<DamagedInput> TraceBytes()
    {
        var n = 0;
        foreach (var at in source.Blocks.Boundaries)
            yield return TraceFile("cut at block boundary", $"cut-block-{at}", _trace[..(int)at], diff: n++ % 4 == 0);
        for (var i = 0; i < 30 * scale; i++)
        {
            var at = i < 10 * scale ? _random.Next(1, 512) : _random.Next(512, _trace.Length);
            yield return TraceFile("cut at random offset", $"cut-{at}", _trace[..at], diff: i % 4 == 0);
        }
        for (var i = 0; i < 100 * scale; i++)
            yield return TraceFile("byte flip", $"flip-{i}", Flipped(_trace, _random.Next(_trace.Length)), diff: i % 4 == 0);
        var header = (int)Math.Min(_trace.Length, source.Blocks.HeaderBytes + 128);
        for (var i = 0; i < 20 * scale; i++)
            yield return TraceFile("header flip", $"header-flip-{i}", Flipped(_trace, _random.Next(header)), diff: i % 4 == 0);
        for (var i = 0; i < 3 * scale; i++)
        {
            yield return TraceFile("random bytes", $"random-{i}", RandomBytes(4096 << i % 4), diff: false);
            yield return TraceFile("random bytes", $"magic-then-random-{i}", [.. "Nettrace"u8, .. RandomBytes(4096)], diff: false);
            yield return TraceFile("random bytes", $"header-then-random-{i}", [.. _trace[..header], .. RandomBytes(65536)], diff: i == 0);
        }
        yield return TraceFile("empty", "empty", [], diff: true);
        yield return TraceFile("joined", "joined-to-itself", [.. _trace, .. _trace], diff: true) with { Expect = MustWarn("after the trace's end-of-stream tag") };
        yield return TraceFile("joined", "garbage-after-end", [.. _trace, .. RandomBytes(1000)], diff: false) with { Expect = MustWarn("after the trace's end-of-stream tag") };
    }

    private DamagedInput TraceFile(string kind, string name, byte[] bytes, bool diff)
    {
        var dir = source.NewWorkDir(name);
        var path = Path.Combine(dir, "input.nettrace");
        File.WriteAllBytes(path, bytes);
        List<string[]> calls = [["analyze", path], ["stats", path]];
        if (diff) calls.Add(["diff", Base, path]);
        return new DamagedInput(kind, name, calls, () => Directory.Delete(dir, recursive: true));
    }

    // ---- zips -------------------------------------------------------------------------------------------------

    public IEnumerable<DamagedInput> Zips()
    {
        yield return Zip("zip", "good", z => { Add(z, "rec/trace.nettrace", _trace); AddFile(z, "rec/results.json", source.Folder.ResultsJson); })
            with { Expect = o => Assert.Equal(0, o.ExitCode) };
        yield return Zip("zip", "empty", _ => { }) with { Expect = MustFail("holds no .nettrace") };
        yield return Zip("zip", "folders-only", z => { z.CreateEntry("rec/"); z.CreateEntry("rec/sub/"); }) with { Expect = MustFail("holds no .nettrace") };
        var inner = new MemoryStream();
        using (var z = new ZipArchive(inner, ZipArchiveMode.Create, leaveOpen: true)) Add(z, "trace.nettrace", _trace);
        yield return Zip("zip", "nested", z => Add(z, "inner.zip", inner.ToArray())) with { Expect = MustFail("another zip ('inner.zip')") };
        yield return Zip("zip", "two-traces", z => { Add(z, "a/trace.nettrace", _trace); Add(z, "b/trace.nettrace", _trace[..(_trace.Length / 2)]); })
            with { Expect = MustFail("holds 2 traces (a/trace.nettrace, b/trace.nettrace)") };
        foreach (var escaping in new[] { "../escaped.nettrace", "/tmp/esp-absolute.nettrace", "rec/../../up.nettrace", "..\\windows.nettrace", "C:/drive.nettrace" })
            yield return Zip("zip escaping", "escape " + escaping, z => Add(z, escaping, _trace))
                with { Expect = MustFail($"entry '{escaping}' would be extracted outside") };
        yield return Zip("zip escaping", "escaping-companion", z => { Add(z, "rec/trace.nettrace", _trace); Add(z, "rec/../../results.json", "{}"u8.ToArray()); })
            with { Expect = MustFail("would be extracted outside") };
        yield return Zip("zip", "truncated-trace", z => Add(z, "trace.nettrace", _trace[..(_trace.Length / 3)]));
        yield return Zip("zip", "not-a-trace", z => Add(z, "trace.nettrace", "hello"u8.ToArray())) with { Expect = MustFail("not a .nettrace file") };
        var good = ZipBytes(z => Add(z, "trace.nettrace", _trace));
        for (var i = 0; i < 4 * scale; i++)
            yield return ZipFromBytes("zip damaged", $"zip-cut-{i}", good[.._random.Next(1, good.Length)]);
        for (var i = 0; i < 6 * scale; i++)
            yield return ZipFromBytes("zip damaged", $"zip-flip-{i}", Flipped(good, _random.Next(good.Length)));
    }

    private DamagedInput Zip(string kind, string name, Action<ZipArchive> fill) => ZipFromBytes(kind, name, ZipBytes(fill));

    private DamagedInput ZipFromBytes(string kind, string name, byte[] bytes)
    {
        // Nested one level down, so an escaping entry that got out would land in the input's own folder, not in a shared one.
        var dir = Path.Combine(source.NewWorkDir(name), "inner");
        Directory.CreateDirectory(dir);
        var path = Path.Combine(dir, "input.zip");
        File.WriteAllBytes(path, bytes);
        var outer = Path.GetDirectoryName(dir)!;
        return new DamagedInput(kind, name, [["analyze", path], ["stats", path], ["diff", Base, path]], () =>
        {
            // Nothing may have been written next to the zip's folder, whatever the zip held.
            Assert.Equal([dir], Directory.EnumerateFileSystemEntries(outer));
            Directory.Delete(outer, recursive: true);
        });
    }

    private static byte[] ZipBytes(Action<ZipArchive> fill)
    {
        var stream = new MemoryStream();
        using (var zip = new ZipArchive(stream, ZipArchiveMode.Create, leaveOpen: true)) fill(zip);
        return stream.ToArray();
    }

    private static void Add(ZipArchive zip, string name, byte[] bytes)
    {
        using var entry = zip.CreateEntry(name).Open();
        entry.Write(bytes);
    }

    private static void AddFile(ZipArchive zip, string name, string path) => Add(zip, name, File.ReadAllBytes(path));

    // ---- .etlx caches -----------------------------------------------------------------------------------------

    public IEnumerable<DamagedInput> Caches()
    {
        // A cache that is right for its own trace (half of this one) but wrong for this one.
        var otherDir = source.NewWorkDir("other-trace");
        var other = Path.Combine(otherDir, "trace.nettrace");
        File.WriteAllBytes(other, _trace[..(_trace.Length / 2)]);
        EtlxCache.Open(other, keep: true, progress: null).Dispose();
        var otherEtlx = File.ReadAllBytes(EtlxCache.CachePath(other));
        var otherRecord = File.ReadAllBytes(EtlxCache.RecordPath(other));
        // This trace's own cache, to damage.
        var ownDir = source.NewWorkDir("own-trace");
        var own = Path.Combine(ownDir, "trace.nettrace");
        File.WriteAllBytes(own, _trace);
        EtlxCache.Open(own, keep: true, progress: null).Dispose();
        var ownEtlx = File.ReadAllBytes(EtlxCache.CachePath(own));
        var ownRecord = File.ReadAllBytes(EtlxCache.RecordPath(own));
        Directory.Delete(otherDir, recursive: true);
        Directory.Delete(ownDir, recursive: true);

        yield return Cache("stale: made while the trace was half written", otherEtlx, otherRecord, newerCache: true);
        yield return Cache("foreign .etlx without its record", otherEtlx, null, newerCache: true);
        yield return Cache("foreign .etlx with a record of this trace", otherEtlx, ownRecord, newerCache: true);
        yield return Cache("corrupt: random bytes", RandomBytes(ownEtlx.Length), ownRecord, newerCache: true);
        yield return Cache("corrupt: cut in half", ownEtlx[..(ownEtlx.Length / 2)], ownRecord, newerCache: true);
        yield return Cache("corrupt: empty", [], ownRecord, newerCache: true);
        for (var i = 0; i < 3 * scale; i++)
            yield return Cache($"corrupt: byte flipped {i}", Flipped(ownEtlx, _random.Next(ownEtlx.Length)), ownRecord, newerCache: true);
        yield return Cache("record: garbage", ownEtlx, RandomBytes(300), newerCache: true);
        yield return Cache("record: null", ownEtlx, "null"u8.ToArray(), newerCache: true);
        yield return Cache("record: wrong types", ownEtlx, """{"format":"one","traceBytes":[],"warnings":7}"""u8.ToArray(), newerCache: true);
        yield return Cache("record: cut", ownEtlx, ownRecord[..(ownRecord.Length / 2)], newerCache: true);
        yield return Cache("the cache is a folder", null, ownRecord, newerCache: true);
    }

    /// <param name="etlx">The cache's bytes; null makes trace.nettrace.etlx a folder.</param>
    private DamagedInput Cache(string name, byte[]? etlx, byte[]? record, bool newerCache)
    {
        var dir = CopyOfSource("cache " + name, withCache: false);
        var trace = Path.Combine(dir, "trace.nettrace");
        var cache = EtlxCache.CachePath(trace);
        if (etlx is null) Directory.CreateDirectory(cache); else File.WriteAllBytes(cache, etlx);
        if (record is not null) File.WriteAllBytes(EtlxCache.RecordPath(trace), record);
        // The old cache was trusted when newer than the trace: make every one of these look fresh.
        if (newerCache && etlx is not null) File.SetLastWriteTimeUtc(cache, File.GetLastWriteTimeUtc(trace).AddMinutes(5));
        return new DamagedInput("cache", name, [["analyze", dir, "--format", "json"], ["diff", Base, dir]], () => Directory.Delete(dir, recursive: true))
        {
            // A cache is never the user's problem: the trace is analyzed as if there were none.
            Expect = o =>
            {
                Assert.True(o.ExitCode == 0, $"{o.CommandLine}: {o.StdErr}");
                if (o.Verb == "analyze") Assert.Equal(RunCount(source.Control.StdOut), RunCount(o.StdOut));
            },
        };
    }

    private static int RunCount(string json) => System.Text.Json.JsonDocument.Parse(json).RootElement.GetProperty("runs").GetArrayLength();

    // ---- stack tags files -------------------------------------------------------------------------------------

    public IEnumerable<DamagedInput> TagFiles()
    {
        var good = File.ReadAllText(source.Folder.StackTags);
        var files = new List<(string Name, byte[] Bytes)>
        {
            ("unclosed", Encoding.UTF8.GetBytes(good[..(good.Length / 2)])),
            ("empty", []),
            ("binary", RandomBytes(2048)),
            ("wrong-root", "<?xml version=\"1.0\"?><Tags><Tag Name=\"A\"/></Tags>"u8.ToArray()),
            ("bad-priority", "<Tag Name=\"\"><Tag Name=\"A\" Priority=\"high\"><Entrypoint Module=\"*\" Method=\"*\"/></Tag></Tag>"u8.ToArray()),
            ("entrypoint-at-root", "<Tag Name=\"\"><Entrypoint Module=\"*\" Method=\"*\"/></Tag>"u8.ToArray()),
            ("deeply-nested", Encoding.UTF8.GetBytes(string.Concat(Enumerable.Repeat("<Tag Name=\"x\">", 100_000)) + "<Entrypoint Method=\"*\"/>" + string.Concat(Enumerable.Repeat("</Tag>", 100_000)))),
            ("entity-expansion", Encoding.UTF8.GetBytes("<?xml version=\"1.0\"?><!DOCTYPE Tag [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\"><!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\">]><Tag Name=\"&c;\"/>")),
            ("huge-attribute", Encoding.UTF8.GetBytes($"<Tag Name=\"\"><Tag Name=\"{new string('n', 1 << 20)}\"><Entrypoint Method=\"{new string('*', 1 << 16)}\"/></Tag></Tag>")),
            ("bogus-encoding", "<?xml version=\"1.0\" encoding=\"no-such-encoding\"?><Tag Name=\"\"/>"u8.ToArray()),
            ("utf16-declared", "<?xml version=\"1.0\" encoding=\"utf-16\"?><Tag Name=\"\"/>"u8.ToArray()),
            ("nul-bytes", [.. "<Tag Name=\""u8, 0, 0, .. "\"/>"u8]),
        };
        for (var i = 0; i < 3 * scale; i++)
            files.Add(($"flip-{i}", Flipped(Encoding.UTF8.GetBytes(good), _random.Next(good.Length))));
        foreach (var (name, bytes) in files)
        {
            var dir = source.NewWorkDir("tags-" + name);
            var path = Path.Combine(dir, "input.stacktags");
            File.WriteAllBytes(path, bytes);
            yield return Tags(name, path, () => Directory.Delete(dir, recursive: true));
        }
        var folderDir = source.NewWorkDir("tags-folder");
        yield return Tags("a folder", folderDir, () => Directory.Delete(folderDir, recursive: true));
        yield return Tags("missing", Path.Combine(folderDir, "missing.stacktags"), null);
    }

    private DamagedInput Tags(string name, string path, Action? cleanup) =>
        new("stack tags file", name, [["analyze", Base, "--stacktags", path], ["diff", Base, Base, "--stacktags", path], ["stacktags", "check", path]], cleanup);

    // ---- results.json and manifest.json -----------------------------------------------------------------------

    public IEnumerable<DamagedInput> Companions()
    {
        var results = File.ReadAllBytes(source.Folder.ResultsJson);
        var manifest = File.ReadAllBytes(source.Folder.Manifest);
        var common = new List<(string Name, byte[]? Bytes)>
        {
            ("empty", []), ("null", "null"u8.ToArray()), ("array", "[]"u8.ToArray()), ("object", "{}"u8.ToArray()),
            ("binary", RandomBytes(1024)), ("a folder", null),
            ("deep", Encoding.UTF8.GetBytes(new string('[', 5000) + new string(']', 5000))),
            ("huge-number", "{\"runs\":[{\"serializer\":\"Reflection\",\"objects\":1e400}]}"u8.ToArray()),
        };
        var resultsOnly = new List<(string, byte[]?)>
        {
            ("cut", results[..(results.Length / 2)]),
            ("runs-null", "{\"runtime\":\"x\",\"operatingSystem\":\"x\",\"configuration\":\"x\",\"debuggerAttached\":false,\"processId\":1,\"startTimeUtc\":\"2020-01-01T00:00:00Z\",\"commandLine\":\"x\",\"runs\":null}"u8.ToArray()),
            ("run-fields-null", Encoding.UTF8.GetBytes(Encoding.UTF8.GetString(results).Replace("\"serializer\": \"Reflection\"", "\"serializer\": null", StringComparison.Ordinal))),
            ("runs-wrong-type", Encoding.UTF8.GetBytes(Encoding.UTF8.GetString(results).Replace("\"runs\": [", "\"runs\": \"no\", \"x\": [", StringComparison.Ordinal))),
            ("negative-numbers", Encoding.UTF8.GetBytes(Encoding.UTF8.GetString(results).Replace("\"objects\": 1000", "\"objects\": -2147483648", StringComparison.Ordinal))),
        };
        for (var i = 0; i < 3 * scale; i++) resultsOnly.Add(($"flip-{i}", Flipped(results, _random.Next(results.Length))));
        var manifestOnly = new List<(string, byte[]?)>
        {
            ("cut", manifest[..(manifest.Length / 2)]),
            ("heap-snapshots-garbage", "{\"heapSnapshots\":[null,7,{\"serializer\":null},{\"file\":\"../../../etc/passwd\",\"status\":\"Taken\",\"serializer\":\"Reflection\",\"data\":\"BookShelf\",\"objects\":1}]}"u8.ToArray()),
            ("heap-snapshots-not-a-list", "{\"heapSnapshots\":\"x\",\"environment\":[1,2]}"u8.ToArray()),
            ("heap-file-absolute", "{\"heapSnapshots\":[{\"file\":\"/etc/passwd\",\"status\":\"Taken\",\"serializer\":\"Reflection\",\"data\":\"BookShelf\",\"objects\":1}]}"u8.ToArray()),
            ("environment-wrong-type", "{\"environment\":{\"A\":[1,{\"b\":null}]}}"u8.ToArray()),
        };
        for (var i = 0; i < 3 * scale; i++) manifestOnly.Add(($"flip-{i}", Flipped(manifest, _random.Next(manifest.Length))));

        foreach (var (name, bytes) in common.Concat(resultsOnly))
            yield return Companion("results.json", name, bytes);
        foreach (var (name, bytes) in common.Concat(manifestOnly))
            yield return Companion("manifest.json", name, bytes);
        // The Linux kernel session's companion (perf script text, gzipped), read when a trace folder has one.
        var script = Gzip("esp-bench 123/456 [000] 1.000001: 1001001 cpu-clock:\n\t 7f00 Serialize (/x.so)\n\n"u8.ToArray());
        List<(string, byte[]?)> kernel = [("empty", []), ("not gzip", RandomBytes(4096)), ("gzip of random bytes", Gzip(RandomBytes(65536))), ("cut gzip", script[..(script.Length / 2)]), ("a folder", null)];
        for (var i = 0; i < 3 * scale; i++)
            kernel.Add(($"gzip of garbage lines {i}", Gzip(Encoding.UTF8.GetBytes(string.Join("\n", Enumerable.Range(0, 200).Select(_ => Convert.ToBase64String(RandomBytes(_random.Next(1, 60))).Replace('A', ' ').Replace('B', ':').Replace('C', '\t')))))));
        foreach (var (name, bytes) in kernel)
            yield return Companion("kernel.perf-script.txt.gz", name, bytes);
    }

    private static byte[] Gzip(byte[] bytes)
    {
        var stream = new MemoryStream();
        using (var gzip = new GZipStream(stream, CompressionLevel.Fastest, leaveOpen: true)) gzip.Write(bytes);
        return stream.ToArray();
    }

    private DamagedInput Companion(string file, string name, byte[]? bytes)
    {
        var dir = CopyOfSource($"{file}-{name}", withCache: true);
        var path = Path.Combine(dir, file);
        if (File.Exists(path)) File.Delete(path);
        if (bytes is null) Directory.CreateDirectory(path); else File.WriteAllBytes(path, bytes);
        return new DamagedInput(file, name, [["analyze", dir], ["diff", Base, dir], ["heap", dir], ["heap", dir, "--list"]], () => Directory.Delete(dir, recursive: true));
    }

    /// <summary>The source trace folder without its dump; with the source's cache, a copy is not converted again (the cache goes by content).</summary>
    private string CopyOfSource(string name, bool withCache)
    {
        var dir = source.NewWorkDir(name);
        foreach (var f in Directory.EnumerateFiles(Base).Where(f => !f.EndsWith(".dmp", StringComparison.Ordinal)))
        {
            if (!withCache && f.Contains(".etlx", StringComparison.Ordinal)) continue;
            File.Copy(f, Path.Combine(dir, Path.GetFileName(f)));
        }
        return dir;
    }

    // ---- heap snapshots ---------------------------------------------------------------------------------------

    public IEnumerable<DamagedInput> Dumps()
    {
        var dumpName = Path.GetFileName(source.Dump);
        var dir = CopyOfSource("dumps", withCache: false);
        var dump = Path.Combine(dir, dumpName);
        DamagedInput Heap(string kind, string name) => new(kind, name, [["heap", dir], ["heap", dump, "--format", "json"]], null);

        File.WriteAllBytes(dump, []);
        yield return Heap("dump", "empty");
        File.WriteAllBytes(dump, RandomBytes(65536));
        yield return Heap("dump", "random bytes");
        File.WriteAllBytes(dump, [0x7f, .. "ELF"u8, .. RandomBytes(65536)]);
        yield return Heap("dump", "ELF magic then random bytes");

        File.Copy(source.Dump, dump, overwrite: true);
        var length = new FileInfo(dump).Length;
        // Flipped in place and put back: a 140 MB copy per input would cost more than reading it.
        using (var stream = new FileStream(dump, FileMode.Open, FileAccess.ReadWrite))
        {
            for (var i = 0; i < 10 * scale; i++)
            {
                var at = i % 2 == 0 ? _random.NextInt64(Math.Min(length, 65536)) : _random.NextInt64(length);
                stream.Position = at;
                var original = (byte)stream.ReadByte();
                stream.Position = at;
                stream.WriteByte((byte)(original ^ (byte)_random.Next(1, 256)));
                stream.Flush();
                yield return Heap("dump byte flip", $"flip at {at}");
                stream.Position = at;
                stream.WriteByte(original);
                stream.Flush();
            }
            // Cut shorter and shorter: one copy serves every cut.
            foreach (var at in Enumerable.Range(0, 8 * scale).Select(_ => _random.NextInt64(1, length)).OrderDescending())
            {
                stream.SetLength(at);
                stream.Flush();
                yield return Heap("dump cut", $"cut at {at}");
            }
        }
        Directory.Delete(dir, recursive: true);
    }

    // ---- helpers ----------------------------------------------------------------------------------------------

    private byte[] Flipped(byte[] bytes, int at)
    {
        var copy = (byte[])bytes.Clone();
        if (copy.Length > 0) copy[at] ^= (byte)_random.Next(1, 256);
        return copy;
    }

    private byte[] RandomBytes(int length)
    {
        var bytes = new byte[length];
        _random.NextBytes(bytes);
        return bytes;
    }

    private static Action<VerbOutcome> MustFail(string message) => o =>
    {
        Assert.True(o.ExitCode == Common.ExitCodes.BadInput, $"{o.CommandLine}: exit {o.ExitCode}, expected {Common.ExitCodes.BadInput}: {o.StdErr}");
        Assert.Contains(message, o.StdErr, StringComparison.Ordinal);
    };

    /// <summary>Analyzing and diffing say it in a warning; stats in a note of its table.</summary>
    /// <summary>analyze says it in a warning, stats in a note of its table, diff counts the side's warnings.</summary>
    private static Action<VerbOutcome> MustWarn(string message) => o =>
        Assert.True(o.Verb == "diff" ? o.StdOut.Contains("analyzer warning", StringComparison.Ordinal) : (o.StdErr + o.StdOut).Contains(message, StringComparison.Ordinal),
            $"{o.CommandLine}: no warning '{message}'");
}
