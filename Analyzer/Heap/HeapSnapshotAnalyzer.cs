using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Common;
using Microsoft.Diagnostics.Runtime;

namespace EtwSerializerProfiler.Analyzer.Heap;

/// <summary>
/// Reads one heap snapshot with ClrMD: finds the benchmark's holder (<see cref="HeapSnapshotRootNames"/>), walks
/// the original and the deserialized graph from their fields, and compares them by type and by string identity.
/// </summary>
public static class HeapSnapshotAnalyzer
{
    public static HeapSnapshotAnalysis Analyze(string dumpPath, HeapSnapshotInfo? recorded = null)
    {
        DataTarget target;
        try
        {
            target = DataTarget.LoadDump(dumpPath);
        }
        catch (Exception ex) when (ex is InvalidDataException or IOException or NotSupportedException or ArgumentException or InvalidOperationException
            || ReaderFault.IsFrom(ex, ReaderFault.ClrMD))
        {
            throw new BadInputException($"{dumpPath}: not a readable dump ({ex.Message})", ex);
        }
        using (target)
        {
            ClrInfo clr;
            try
            {
                clr = target.ClrVersions.FirstOrDefault() ?? throw new BadInputException($"{dumpPath}: no .NET runtime in this dump");
            }
            catch (Exception ex) when (ReaderFault.IsFrom(ex, ReaderFault.ClrMD))
            {
                throw new BadInputException($"{dumpPath}: not a readable dump ({ReaderFault.Describe(ex)})", ex);
            }
            var version = RuntimeVersion(clr);
            ClrRuntime runtime;
            try
            {
                runtime = clr.CreateRuntime();
            }
            catch (Exception ex) when (ex is FileNotFoundException or InvalidOperationException or IOException or ClrDiagnosticsException)
            {
                throw new BadInputException(DacIsHere(version)
                    ? $"{dumpPath}: cannot read .NET {version} in this dump, whose data access library (DAC) is here: the dump is damaged or truncated ({ex.Message})"
                    : $"{dumpPath}: cannot read .NET {version} in this dump: its data access library (DAC) is not available here; analyze it where .NET {version} is installed ({ex.Message})", ex);
            }
            using (runtime)
            {
                try
                {
                    return Analyze(dumpPath, runtime, version, recorded);
                }
                catch (Exception ex) when (ReaderFault.IsFrom(ex, ReaderFault.ClrMD))
                {
                    // A damaged or cut dump reads as garbage pointers and lengths deep inside ClrMD.
                    throw new BadInputException($"{dumpPath}: the dump is damaged or truncated ({ReaderFault.Describe(ex)})", ex);
                }
            }
        }
    }

    /// <summary>Whether this machine has the dump's runtime (and so its DAC): then a failure to read it is the dump's.</summary>
    private static bool DacIsHere(string version)
    {
        var shared = Path.GetDirectoryName(Path.TrimEndingDirectorySeparator(System.Runtime.InteropServices.RuntimeEnvironment.GetRuntimeDirectory()));
        var dac = OperatingSystem.IsWindows() ? "mscordaccore.dll" : OperatingSystem.IsMacOS() ? "libmscordaccore.dylib" : "libmscordaccore.so";
        return shared is not null && File.Exists(Path.Combine(shared, version, dac));
    }

    /// <summary>
    /// ClrMD reads no version resource from a Linux core dump (it reports 0.0); the runtime's folder is named after
    /// its version (shared/Microsoft.NETCore.App/10.0.12/libcoreclr.so), which is what a user needs to match.
    /// </summary>
    private static string RuntimeVersion(ClrInfo clr)
    {
        if (clr.Version.Major > 0) return clr.Version.ToString();
        var folder = Path.GetFileName(Path.GetDirectoryName(clr.ModuleInfo.FileName.Replace('\\', '/')) ?? "");
        return Version.TryParse(folder.Split('-')[0], out _) ? folder : "(unknown version)";
    }

    private static HeapSnapshotAnalysis Analyze(string dumpPath, ClrRuntime runtime, string version, HeapSnapshotInfo? recorded)
    {
        var holder = runtime.EnumerateModules().Select(m => m.GetTypeByName(HeapSnapshotRootNames.TypeName)).FirstOrDefault(t => t is not null)
            ?? throw new BadInputException($"{dumpPath}: no {HeapSnapshotRootNames.TypeName} in this dump: it was not taken by `esp record --heap`");
        var domain = runtime.AppDomains.FirstOrDefault() ?? throw new BadInputException($"{dumpPath}: the dump has no app domain");
        ClrObject Root(string field) =>
            (holder.GetStaticFieldByName(field) ?? throw new BadInputException($"{dumpPath}: {HeapSnapshotRootNames.TypeName}.{field} is missing (benchmark and analyzer versions differ?)"))
            .ReadObject(domain);

        var deserializedRoot = Root(HeapSnapshotRootNames.DeserializedField);
        if (deserializedRoot.IsNull)
            throw new BadInputException($"{dumpPath}: the heap snapshot holder is empty: the dump was not taken at a snapshot point");
        var infoObject = Root(HeapSnapshotRootNames.InfoField);
        var described = infoObject.IsNull ? null : HeapSnapshotProtocol.Deserialize<HeapSnapshotInfo>(infoObject.AsString(1 << 20) ?? "{}");
        var snapshot = Merge(described, recorded)
            ?? throw new BadInputException($"{dumpPath}: the snapshot description is missing from the dump");

        var heap = runtime.Heap;
        var original = GraphWalker.Walk(heap, Root(HeapSnapshotRootNames.OriginalField));
        var deserialized = GraphWalker.Walk(heap, deserializedRoot);

        long sharedObjects = 0, sharedBytes = 0;
        foreach (var address in deserialized.Addresses)
        {
            if (!original.Addresses.Contains(address)) continue;
            sharedObjects++;
            sharedBytes += (long)heap.GetObject(address).Size;
        }

        var types = original.ByType.Keys.Union(deserialized.ByType.Keys)
            .Select(t =>
            {
                original.ByType.TryGetValue(t, out var o);
                deserialized.ByType.TryGetValue(t, out var d);
                return new TypeRow(t, o.Count, o.Bytes, d.Count, d.Bytes);
            })
            .OrderByDescending(r => r.DeserializedBytes).ThenByDescending(r => r.OriginalBytes).ThenBy(r => r.Type, StringComparer.Ordinal)
            .ToList();

        return new HeapSnapshotAnalysis
        {
            File = Path.GetFileName(dumpPath),
            Snapshot = snapshot,
            Runtime = $".NET {version}",
            Original = Summarize(original),
            Deserialized = Summarize(deserialized),
            SharedObjects = sharedObjects,
            SharedBytes = sharedBytes,
            Types = types,
            DuplicateStrings = [.. DuplicateStrings.Find("deserialized", deserialized.Strings), .. DuplicateStrings.Find("original", original.Strings)],
        };
    }

    private static GraphSummary Summarize(GraphCensus census) => new()
    {
        Objects = census.Objects,
        Bytes = census.Bytes,
        Strings = census.Strings.Count,
        StringBytes = census.Strings.Sum(s => s.Size),
        DistinctStrings = census.Strings.Select(s => s.Value).Distinct(StringComparer.Ordinal).LongCount(),
        DuplicateStringBytes = DuplicateStrings.WastedBytes(census.Strings),
        FrozenObjects = census.FrozenObjects,
        Unreadable = census.Unreadable,
    };

    /// <summary>The dump's own description wins for what happened in the process; the manifest adds the dump's fate.</summary>
    private static HeapSnapshotInfo? Merge(HeapSnapshotInfo? described, HeapSnapshotInfo? recorded)
    {
        if (described is null) return recorded;
        if (recorded is null) return described with { Status = HeapSnapshotStatus.Taken };
        return described with { Status = recorded.Status, File = recorded.File, DumpType = recorded.DumpType, DumpBytes = recorded.DumpBytes, DumpSeconds = recorded.DumpSeconds };
    }
}
