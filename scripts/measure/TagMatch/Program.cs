using Stopwatch = System.Diagnostics.Stopwatch;
using EtwSerializerProfiler.Analyzer.StackTags;
using Microsoft.Diagnostics.Tracing.Etlx;

// What stack tag matching costs on a real trace: every distinct frame of TRACE's stacks matched once against the
// tags files (cold: the patterns run), then every stack classified (warm: one cache lookup per frame), as the
// analyzer does. docs/analyzer.md#your-own-tags-file-with-the-built-in-ones reports the figures.
if (args.Length < 2)
{
    Console.Error.WriteLine("usage: TagMatch TRACE.etlx TAGS.stacktags [MORE.stacktags ...]   (an .etlx: esp analyze leaves one next to the trace)");
    return 2;
}
using var log = new TraceLog(args[0]);
var frames = new List<StackFrame>();
foreach (var address in log.CodeAddresses)
{
    var module = address.ModuleFile;
    var moduleName = module is null ? "?" : string.IsNullOrEmpty(module.FilePath) ? module.Name : Path.GetFileName(module.FilePath);
    frames.Add(new StackFrame(moduleName, address.FullMethodName is { Length: > 0 } m ? m : "?"));
}
var stacks = new List<StackFrame[]>();
for (var s = 0; s < log.CallStacks.Count; s++)
{
    var frame = new List<StackFrame>();
    for (var i = (CallStackIndex)s; i != CallStackIndex.Invalid; i = log.CallStacks.Caller(i))
        frame.Add(frames[(int)log.CallStacks.CodeAddressIndex(i)]);
    stacks.Add([.. frame]);
}
var file = StackTagFile.Combine([.. args.Skip(1).Select(StackTagFile.Load)]);
for (var round = 1; round <= 5; round++)
{
    var matcher = new StackTagMatcher(file);
    var cold = Stopwatch.StartNew();
    foreach (var f in frames) matcher.MatchFrame(f.Module, f.Method);
    var coldMs = cold.Elapsed.TotalMilliseconds;
    var warm = Stopwatch.StartNew();
    foreach (var s in stacks) matcher.Classify(s);
    Console.WriteLine($"round {round}: {matcher.CachedFrameCount:N0} distinct frames x {file.Rules.Count} entrypoints: {coldMs:F1} ms to match; "
        + $"{stacks.Count:N0} stacks classified in {warm.Elapsed.TotalMilliseconds:F1} ms; {matcher.UnmatchedRules().Count} entrypoints matched nothing");
}
return 0;
