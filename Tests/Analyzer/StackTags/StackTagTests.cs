using EtwSerializerProfiler.Analyzer.StackTags;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Tests.Analyzer.StackTags;

public sealed class StackTagTests
{
    private const string CoreLib = "/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.0/System.Private.CoreLib.dll";
    private const string Bench = "SerializerBenchmark";
    private const string Serializers = "EtwSerializerProfiler.Benchmark.Serializers.";

    private static readonly SerializerTagInfo[] s_serializers =
    [
        new("Newtonsoft.Json", Serializers + "NewtonsoftJsonSerializer"),
        new("Reflection", Serializers + "ReflectionSerializer"),
        new("BinaryFormatter", Serializers + "BinaryFormatterSerializer"),
    ];

    private static readonly Lazy<StackTagMatcher> s_systemActivity = new(() => new(StackTagFile.Load(SamplePath("SystemActivity.stacktags"))));
    private static readonly Lazy<StackTagMatcher> s_dotNetRuntime = new(() => new(StackTagFile.Load(SamplePath("DotNetRuntime.stacktags"))));

    private static StackTagMatcher SystemActivity => s_systemActivity.Value;
    private static StackTagMatcher DotNetRuntime => s_dotNetRuntime.Value;
    private static StackTagMatcher Generated() => new(StackTagFile.Parse(SerializerStackTagsGenerator.Generate(s_serializers), "generated"));

    /// <summary>
    /// The samples live in the repo, not the test output: walk up until the stacktags folder appears, from the
    /// output folder first and from this source file as a fallback (for builds placed outside the repo).
    /// </summary>
    private static string SamplePath(string fileName)
    {
        foreach (var start in new[] { AppContext.BaseDirectory, Path.GetDirectoryName(ThisSourceFile()) ?? "." })
        {
            for (var dir = new DirectoryInfo(start); dir is not null; dir = dir.Parent)
            {
                var candidate = Path.Combine(dir.FullName, "stacktags", "WpaSamples", fileName);
                if (File.Exists(candidate)) return candidate;
            }
        }
        throw new FileNotFoundException($"stacktags/WpaSamples/{fileName} not found above {AppContext.BaseDirectory}");
    }

    private static string ThisSourceFile([System.Runtime.CompilerServices.CallerFilePath] string path = "") => path;

    private static StackFrame[] Stack(params (string Module, string Method)[] leafFirst) =>
        [.. leafFirst.Select(f => new StackFrame(f.Module, f.Method))];

    private static BadInputException ParseError(string xml, string source = "bad.stacktags") =>
        Assert.Throws<BadInputException>(() => StackTagFile.Parse(xml, source));

    // ---- parsing ----

    [Fact]
    public void SystemActivitySampleParses()
    {
        var file = SystemActivity.File;
        Assert.Equal(
            [
                @"Kernel\Context Switch", @"Kernel\Page Fault", @"Waits\Synchronization", @"Waits\Sleep",
                @"File I/O\Read", @"File I/O\Write", @"Application\Startup", @"Application\Message Loop", @"Application\Rendering",
            ],
            file.TagPaths);
        Assert.Equal(17, file.Rules.Count);

        var pageFault = file.Rules.Single(r => r.MethodPattern == "Mi?esolvePageFault*");
        Assert.Equal((@"Kernel\Page Fault", "ntoskrnl.exe", 30), (pageFault.TagPath, pageFault.ModulePattern, pageFault.Priority));
        Assert.Equal(17, pageFault.Line);

        Assert.Equal(-5, file.Rules.First(r => r.TagPath == @"Application\Message Loop").Priority);
        Assert.Equal(5, file.Rules.Single(r => r.TagPath == @"Application\Startup").Priority);
        Assert.Equal(0, file.Rules.First(r => r.TagPath == @"Waits\Sleep").Priority);
        Assert.Equal("*", file.Rules.Single(r => r.ModulePattern == "d3d11.dll").MethodPattern);
    }

    [Fact]
    public void DotNetRuntimeSampleParses()
    {
        var file = DotNetRuntime.File;
        Assert.Contains(@".NET Runtime\GC", file.TagPaths);
        Assert.Contains(@"Managed\Json\System.Text.Json", file.TagPaths);
        Assert.Equal(25, file.Rules.First(r => r.TagPath == @".NET Runtime\Exceptions").Priority);
        Assert.Equal(20, file.Rules.First(r => r.TagPath == @".NET Runtime\JIT").Priority);
        Assert.Equal(-1, file.Rules.First(r => r.TagPath == @"Managed\Collections").Priority);
    }

    [Fact]
    public void HintTagsAndUnknownMarkupAreIgnored()
    {
        var file = SystemActivity.File;
        Assert.DoesNotContain(file.Rules, r => r.MethodPattern is "FlushFileBuffers" or "Ki*Interrupt*");
        Assert.DoesNotContain(file.TagPaths, p => p.Contains("Buffered", StringComparison.Ordinal) || p.Contains("Interrupts", StringComparison.Ordinal));
        Assert.Equal(StackTagMatcher.Other, SystemActivity.Classify(Stack(("KernelBase.dll", "FlushFileBuffers"))));
        Assert.Equal(StackTagMatcher.Other, SystemActivity.Classify(Stack(("ntoskrnl.exe", "KiDispatchInterrupt"))));

        var file2 = StackTagFile.Parse(
            """
            <?xml version="1.0" encoding="utf-8"?>
            <Tag Name="" Version="2">
              <Metadata Author="someone"><Entrypoint Module="x.dll"/></Metadata>
              <Tag Name="A" Color="#ff0000"><Entrypoint Module="a.dll" Method="f" Depth="3"/><!-- note --></Tag>
            </Tag>
            """, "extra.stacktags");
        Assert.Equal(["A"], file2.TagPaths);
        Assert.Single(file2.Rules);
    }

    [Fact]
    public void MalformedXmlNamesFileAndLine()
    {
        var path = Path.Combine(Path.GetTempPath(), $"stacktags-{Guid.NewGuid():N}.stacktags");
        File.WriteAllText(path,
            """
            <?xml version="1.0" encoding="utf-8"?>
            <Tag Name="">
              <Tag Name="A">
                <Entrypoint Module="a.dll" Method="f"/>
              </Tga>
            </Tag>
            """);
        try
        {
            var ex = Assert.Throws<BadInputException>(() => StackTagFile.Load(path));
            Assert.StartsWith($"{path}(5): ", ex.Message, StringComparison.Ordinal);
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Fact]
    public void BadPriorityNamesLine()
    {
        var ex = ParseError(
            """
            <?xml version="1.0" encoding="utf-8"?>
            <Tag Name="">
              <Tag Name="A" Priority="0">
                <Tag Name="B" Priority="high">
                  <Entrypoint Module="a.dll" Method="f"/>
                </Tag>
              </Tag>
            </Tag>
            """);
        Assert.StartsWith("bad.stacktags(4): ", ex.Message, StringComparison.Ordinal);
        Assert.Contains("Priority", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void EntrypointOutsideTagIsAnError()
    {
        var ex = ParseError(
            """
            <Tag Name="">
              <Tag Name="A"><Entrypoint Module="a.dll"/></Tag>
              <Entrypoint Module="b.dll" Method="g"/>
            </Tag>
            """);
        Assert.StartsWith("bad.stacktags(3): ", ex.Message, StringComparison.Ordinal);
        Assert.Contains("Entrypoint", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void RootMustBeTag()
    {
        var ex = ParseError("<Tags>\n  <Tag Name=\"A\"/>\n</Tags>");
        Assert.StartsWith("bad.stacktags(1): ", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void AHugeTagNameIsRefusedWithItsLine()
    {
        var ex = ParseError($"<Tag Name=\"\">\n  <Tag Name=\"{new string('n', 1 << 20)}\"><Entrypoint Method=\"*\"/></Tag>\n</Tag>");
        Assert.Equal("bad.stacktags(2): a tag name of 1048576 characters (at most 256)", ex.Message);
    }

    [Fact]
    public void MissingFileIsAUsageError() =>
        Assert.Throws<UsageException>(() => StackTagFile.Load(Path.Combine(Path.GetTempPath(), $"missing-{Guid.NewGuid():N}.stacktags")));

    // ---- matching ----

    [Fact]
    public void DeepestFrameWins()
    {
        Assert.Equal(@"File I/O\Read", SystemActivity.Classify(Stack(
            ("ntdll.dll", "NtReadFile"), ("KernelBase.dll", "WaitForSingleObjectEx"), ("contoso.exe", "main"))));
        Assert.Equal(@"Waits\Synchronization", SystemActivity.Classify(Stack(
            ("KernelBase.dll", "WaitForSingleObjectEx"), ("ntdll.dll", "NtReadFile"))));
    }

    [Fact]
    public void PriorityBeatsDepth()
    {
        // The kernel frame is the shallowest, but Priority 30 outranks the deeper unprioritized read.
        Assert.Equal(@"Kernel\Context Switch", SystemActivity.Classify(Stack(
            ("ntdll.dll", "NtReadFile"), ("KernelBase.dll", "ReadFile"), ("ntoskrnl.exe", "KiSwapContext"))));
        // Priority is inherited: Page Fault sets none of its own.
        Assert.Equal(@"Kernel\Page Fault", SystemActivity.Classify(Stack(
            ("KernelBase.dll", "ReadFile"), ("ntoskrnl.exe", "MmAccessFault"))));
    }

    [Fact]
    public void NegativePriorityLosesToUnprioritized()
    {
        Assert.Equal(@"Waits\Sleep", SystemActivity.Classify(Stack(
            ("user32.dll", "GetMessageW"), ("KernelBase.dll", "SleepEx"))));
        Assert.Equal(@"Application\Message Loop", SystemActivity.Classify(Stack(
            ("user32.dll", "GetMessageW"), ("contoso.exe", "main"))));
    }

    [Fact]
    public void Wildcards()
    {
        Assert.Equal(@"Kernel\Page Fault", SystemActivity.MatchFrame("ntoskrnl.exe", "MiResolvePageFault"));
        Assert.Equal(@"Kernel\Page Fault", SystemActivity.MatchFrame("ntoskrnl.exe", "MiXesolvePageFaultInternal"));
        Assert.Null(SystemActivity.MatchFrame("ntoskrnl.exe", "MiesolvePageFault"));
        Assert.Equal(@"Waits\Synchronization", SystemActivity.MatchFrame("ntdll.dll", "NtWaitForSingleObject"));
        Assert.Null(SystemActivity.MatchFrame("ntdll.dll", "NtWaitForSingleObjectEx"));

        Assert.Equal(@"Application\Startup", SystemActivity.MatchFrame("contoso2.exe", "wWinMain"));
        Assert.Null(SystemActivity.MatchFrame("contoso.exe", "wWinMain"));
        Assert.Null(SystemActivity.MatchFrame("contoso12.exe", "wWinMain"));

        // Absent Method is "*", including unresolved frames.
        Assert.Equal(@"Application\Rendering", SystemActivity.MatchFrame("d3d11.dll", "?"));
        Assert.Equal(@"Application\Rendering", SystemActivity.MatchFrame("d3d11.dll", ""));
        Assert.Equal(@"Application\Rendering", SystemActivity.MatchFrame("dxgi.dll", "CDXGISwapChain::Present1"));
    }

    [Fact]
    public void AStarInAFrameNameIsText()
    {
        // Frame names may hold '*' (pointer types, operator*, generated names): it must not act as a wildcard.
        var file = StackTagFile.Parse(
            """
            <Tag Name="">
              <Tag Name="GC"><Entrypoint Module="*" Method="*gc_heap*"/></Tag>
              <Tag Name="Exact"><Entrypoint Module="*" Method="Ptr*Deref"/></Tag>
            </Tag>
            """, "inline");
        var matcher = new StackTagMatcher(file);
        Assert.Equal("GC", matcher.MatchFrame("libcoreclr.so", "*ReflectionRuns.gc_heap"));
        Assert.Equal("GC", matcher.MatchFrame("libcoreclr.so", "**gc_heap**"));
        Assert.Equal("Exact", matcher.MatchFrame("a.dll", "Ptr*Deref"));
        Assert.Equal("Exact", matcher.MatchFrame("a.dll", "Ptr**Deref"));
        Assert.Null(matcher.MatchFrame("a.dll", "*Ptr*Deref"));
    }

    [Fact]
    public void WildcardsAgreeWithTheFrameworksSimpleExpressions()
    {
        // FileSystemName.MatchesSimpleExpression implements the same '*'/'?' globbing WPA uses; compare on random
        // short names over a tiny alphabet, which reaches every backtracking case, '*' in names included.
        var random = new Random(7);
        static string Draw(Random r, string alphabet, int max) =>
            new([.. Enumerable.Range(0, r.Next(1, max + 1)).Select(_ => alphabet[r.Next(alphabet.Length)])]);
        var disagreements = new List<string>();
        for (var i = 0; i < 400; i++)
        {
            var pattern = Draw(random, "ab*?", 6);
            var file = StackTagFile.Parse($"<Tag Name=\"\"><Tag Name=\"T\"><Entrypoint Module=\"*\" Method=\"{pattern}\"/></Tag></Tag>", "random");
            var matcher = new StackTagMatcher(file);
            for (var j = 0; j < 25; j++)
            {
                var name = Draw(random, "aAb*", 8);
                var expected = System.IO.Enumeration.FileSystemName.MatchesSimpleExpression(pattern, name, ignoreCase: true);
                if ((matcher.MatchFrame("x.dll", name) is not null) != expected) disagreements.Add($"{pattern} vs {name}: expected {expected}");
            }
        }
        Assert.Empty(disagreements);
    }

    [Fact]
    public void MatchingIsCaseInsensitive()
    {
        Assert.Equal(@"Kernel\Context Switch", SystemActivity.MatchFrame("NTOSKRNL.EXE", "kiswapcontext"));
        Assert.Equal(@"Managed\Json\Newtonsoft", DotNetRuntime.MatchFrame("newtonsoft.json.DLL", "NEWTONSOFT.JSON.JSONSERIALIZER.Serialize(class System.Object)"));
    }

    [Fact]
    public void ModuleNamesAreNormalized()
    {
        var generated = Generated();
        const string method = Serializers + "NewtonsoftJsonSerializer.Serialize(class System.Object,class System.IO.Stream)";
        foreach (var module in new[]
                 {
                     "SerializerBenchmark", "SerializerBenchmark.dll", "SerializerBenchmark.exe",
                     "/home/user/bin/Release/net10.0/SerializerBenchmark.dll", @"C:\bench\net48\SerializerBenchmark.exe",
                 })
        {
            Assert.Equal(@"Serialize\Newtonsoft.Json", generated.MatchFrame(module, method));
        }

        // Without an extension the name is also tried with ".dll" — dots in the name are not an extension.
        const string tryInsert = "System.Collections.Generic.Dictionary`2[System.__Canon,System.__Canon].TryInsert(!0,!1,value class System.Collections.Generic.InsertionBehavior)";
        Assert.Equal(@"Managed\Collections", DotNetRuntime.MatchFrame("System.Private.CoreLib", tryInsert));
        Assert.Equal(@"Managed\Collections", DotNetRuntime.MatchFrame(CoreLib, tryInsert));
        Assert.Equal(@"Managed\Collections", DotNetRuntime.MatchFrame(@"C:\Windows\Microsoft.NET\System.Private.CoreLib.dll", tryInsert));

        // An explicit extension in the pattern still means that extension.
        Assert.Equal(@"Managed\Startup", DotNetRuntime.MatchFrame("SampleApp.exe", "SampleApp.Program.Main(class System.String[])"));
        Assert.Null(DotNetRuntime.MatchFrame("SampleApp.dll", "SampleApp.Program.Main(class System.String[])"));
        Assert.Null(SystemActivity.MatchFrame("ntoskrnl", "KiSwapContext"));
    }

    [Fact]
    public void ModulePatternsMatchFileNamesAsWpaDoes()
    {
        // WPA compares the pattern with the image's file name: "Name.dll" is the IL image (JIT code), "Name.ni.dll"
        // the NGEN image, and one does not match the other (public files list both); "Name.*" matches both.
        var file = StackTagFile.Parse(
            """
            <Tag Name="">
              <Tag Name="IL"><Entrypoint Module="mscorlib.dll" Method="f"/></Tag>
              <Tag Name="NGEN"><Entrypoint Module="mscorlib.ni.dll" Method="g"/></Tag>
              <Tag Name="Any"><Entrypoint Module="mscorlib.*" Method="h"/></Tag>
              <Tag Name="CoreLib"><Entrypoint Module="System.Private.CoreLib.dll" Method="i"/></Tag>
              <Tag Name="Clr"><Entrypoint Module="*clr.dll" Method="j"/></Tag>
            </Tag>
            """, "inline");
        var m = new StackTagMatcher(file);
        Assert.Equal("IL", m.MatchFrame(@"C:\Windows\Microsoft.NET\Framework64\v4.0.30319\mscorlib.dll", "f"));
        Assert.Equal("IL", m.MatchFrame("mscorlib", "f")); // TraceEvent without a file path: the name is tried as Name.dll
        Assert.Null(m.MatchFrame("mscorlib.ni.dll", "f"));
        Assert.Equal("NGEN", m.MatchFrame(@"C:\Windows\assembly\NativeImages_v4.0.30319_64\mscorlib\0a1b\mscorlib.ni.dll", "g"));
        Assert.Null(m.MatchFrame("mscorlib.dll", "g"));
        Assert.Equal("Any", m.MatchFrame("mscorlib.dll", "h"));
        Assert.Equal("Any", m.MatchFrame("mscorlib.ni.dll", "h"));
        Assert.Equal("Any", m.MatchFrame("mscorlib", "h"));
        // TraceEvent names .NET Core modules by their file on disk, on Linux too: Windows-style patterns match them.
        Assert.Equal("CoreLib", m.MatchFrame(CoreLib, "i"));
        Assert.Equal("CoreLib", m.MatchFrame("SYSTEM.PRIVATE.CORELIB.DLL", "i"));
        Assert.Equal("Clr", m.MatchFrame("coreclr.dll", "j"));
        Assert.Equal("Clr", m.MatchFrame("clr.dll", "j"));
        // The runtime's native library is libcoreclr.so on Linux: a pattern for the Windows file does not match it.
        Assert.Null(m.MatchFrame("/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.0/libcoreclr.so", "j"));
    }

    [Fact]
    public void ColonAndDottedMethodPatterns()
    {
        // "Type::Method" pattern against TraceEvent's dotted name with signature.
        Assert.Equal(@"Managed\Json\System.Text.Json", DotNetRuntime.MatchFrame("System.Text.Json.dll",
            "System.Text.Json.JsonSerializer.Serialize(class System.Text.Json.Utf8JsonWriter,!!0,class System.Text.Json.JsonSerializerOptions)"));
        // "Type.Method" pattern, as some public files write it.
        Assert.Equal(@"Managed\Json\Newtonsoft", DotNetRuntime.MatchFrame("Newtonsoft.Json.dll",
            "Newtonsoft.Json.JsonSerializer.SerializeInternal(class Newtonsoft.Json.JsonWriter,class System.Object,class System.Type)"));
        // Generic type arguments contain dots; the type ends before the method, not inside the brackets.
        Assert.Equal(@"Managed\Collections", DotNetRuntime.MatchFrame(CoreLib, "System.Collections.Generic.List`1[System.Int32].AddWithResize(!0)"));
        // Native frames already carry "::".
        Assert.Equal(@".NET Runtime\GC", DotNetRuntime.MatchFrame("coreclr.dll", "WKS::gc_heap::mark_phase"));

        var file = StackTagFile.Parse(
            """
            <Tag Name="">
              <Tag Name="Colon"><Entrypoint Method="Outer.Type::Inner*"/></Tag>
              <Tag Name="Dotted"><Entrypoint Method="Outer.Type.Inner*"/></Tag>
              <Tag Name="Ctor"><Entrypoint Method="App.Widget::.ctor"/></Tag>
              <Tag Name="Nested"><Entrypoint Method="App.Outer+Nested::Run"/></Tag>
              <Tag Name="Lambda"><Entrypoint Method="App.Outer+&lt;&gt;c::&lt;Run&gt;b__0_0"/></Tag>
            </Tag>
            """, "inline");
        var matcher = new StackTagMatcher(file);
        Assert.Equal("Colon", matcher.MatchFrame("a.dll", "Outer.Type.InnerMethod(int32)"));
        // "Outer.Type.Inner.Deep" is type "Outer.Type.Inner", method "Deep": the "::" pattern must not see it.
        Assert.Equal("Dotted", matcher.MatchFrame("a.dll", "Outer.Type.Inner.Deep()"));
        Assert.Equal("Ctor", matcher.MatchFrame("a.dll", "App.Widget..ctor(class System.String)"));
        Assert.Equal("Nested", matcher.MatchFrame("a.dll", "App.Outer+Nested.Run()"));
        Assert.Equal("Lambda", matcher.MatchFrame("a.dll", "App.Outer+<>c.<Run>b__0_0(class System.Object)"));
    }

    [Fact]
    public void UnmatchedStacksAreOther()
    {
        Assert.Equal(StackTagMatcher.Other, SystemActivity.Classify(Stack(("contoso.exe", "main"), ("?", "?"), ("", ""))));
        Assert.Equal(StackTagMatcher.Other, SystemActivity.Classify([]));
        Assert.Equal(StackTagMatcher.Other, Generated().Classify(Stack((CoreLib, "System.String.Concat(string,string)"))));
    }

    // ---- generator ----

    [Fact]
    public void GeneratedTagsClassifyBenchmarkStacks()
    {
        var generated = Generated();
        const string runner = "EtwSerializerProfiler.Benchmark.Runs.Runner.Run(class EtwSerializerProfiler.Benchmark.Runs.RunOptions)";

        Assert.Equal(@"Reflection\FieldInfo.GetValue", generated.Classify(Stack(
            (CoreLib, "System.Reflection.RtFieldInfo.GetValue(class System.Object)"),
            (Bench, Serializers + "ReflectionSerializer.Deserialize(class System.Type,class System.IO.Stream)"),
            (Bench, runner))));

        Assert.Equal(@"Serialize\Newtonsoft.Json", generated.Classify(Stack(
            (Bench, Serializers + "NewtonsoftJsonSerializer.Serialize(class System.Object,class System.IO.Stream)"),
            (Bench, runner))));

        Assert.Equal(@"Test Duration\SerializeDuration", generated.Classify(Stack(
            (CoreLib, "System.Threading.WaitHandle.WaitOneNoCheck(int32,bool,class System.Object,value class WaitHandleWaitSourceId)"),
            (CoreLib, "System.Threading.WaitHandle.WaitOne(int32)"),
            (CoreLib, "System.Threading.ManualResetEvent.WaitOne()"),
            (Bench, "EtwSerializerProfiler.Benchmark.Runs.RunMarkers.SerializeDuration(class System.Threading.ManualResetEvent)"),
            (Bench, runner))));

        Assert.Equal("Test Infrastructure", generated.Classify(Stack(
            (CoreLib, "System.String.Concat(string,string)"), (Bench, runner))));
        Assert.Equal(@"Activator\CreateInstance", generated.Classify(Stack(
            (CoreLib, "System.RuntimeType+ActivatorCache.CreateUninitializedObject(class System.RuntimeType)"),
            (Bench, Serializers + "BinaryFormatterSerializer.Deserialize(class System.Type,class System.IO.Stream)"))));
        Assert.Equal("GC", generated.Classify(Stack(
            ("/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.0/libcoreclr.so", "WKS::gc_heap::plan_phase"),
            (CoreLib, "System.Reflection.RtFieldInfo.GetValue(class System.Object)"))));
        Assert.Equal("JIT", generated.Classify(Stack(
            ("libclrjit.so", "?"), (Bench, Serializers + "NewtonsoftJsonSerializer.Serialize(class System.Object,class System.IO.Stream)"))));
    }

    [Fact]
    public void GeneratorIsDeterministicAndMarked()
    {
        var text = SerializerStackTagsGenerator.Generate(s_serializers);
        Assert.Equal(text, SerializerStackTagsGenerator.Generate(s_serializers.AsEnumerable().Reverse()));
        Assert.StartsWith("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n", text, StringComparison.Ordinal);
        Assert.Contains("esp stacktags generate", text, StringComparison.Ordinal);
        Assert.Contains("Do not edit by hand", text, StringComparison.Ordinal);
        Assert.DoesNotContain('\r', text);
        Assert.DoesNotContain('\t', text);
        Assert.DoesNotContain(".exe", text, StringComparison.OrdinalIgnoreCase);

        var file = StackTagFile.Parse(text, "generated");
        Assert.Equal(file.TagPaths.OrderBy(p => p, StringComparer.Ordinal), file.TagPaths);
        Assert.Contains(@"Deserialize\BinaryFormatter", file.TagPaths);
        Assert.Contains(@"Test Duration\FirstCallDuration", file.TagPaths);
        Assert.All(file.Rules.Where(r => r.TagPath.StartsWith(@"Reflection\Field", StringComparison.Ordinal)), r => Assert.Equal(10, r.Priority));
        // The families rank among themselves only (the owner rule, not priority, keeps invoked code out of Invoke).
        Assert.All(file.Rules.Where(r => r.TagPath == @"Reflection\Invoke"), r => Assert.Equal(SerializerStackTagsGenerator.ReflectionPriority, r.Priority));
        Assert.All(file.Rules.Where(r => r.TagPath == @"Reflection\Type queries"), r => Assert.Equal(SerializerStackTagsGenerator.TypeQueryPriority, r.Priority));
        Assert.All(file.Rules.Where(r => r.TagPath is "GC" or "JIT"), r => Assert.Equal(20, r.Priority));
        Assert.All(file.Rules.Where(r => r.TagPath == "Test Infrastructure"), r => Assert.Equal(-10, r.Priority));
    }

    [Fact]
    public void GeneratorRejectsDuplicateNames() =>
        Assert.Throws<ArgumentException>(() => SerializerStackTagsGenerator.Generate(
            [new("A", "X.A"), new("a", "X.B")]));

    // ---- cache ----

    [Fact]
    public void ClassifyingManyStacksResolvesEachDistinctFrameOnce()
    {
        var matcher = Generated();
        StackFrame[] frames =
        [
            new(CoreLib, "System.Reflection.RtFieldInfo.GetValue(class System.Object)"),
            new(Bench, Serializers + "ReflectionSerializer.Deserialize(class System.Type,class System.IO.Stream)"),
            new(Bench, Serializers + "NewtonsoftJsonSerializer.Serialize(class System.Object,class System.IO.Stream)"),
            new(Bench, "EtwSerializerProfiler.Benchmark.Runs.Runner.Run()"),
            new(CoreLib, "System.String.Concat(string,string)"),
            new("libcoreclr.so", "WKS::gc_heap::mark_phase"),
            new("?", "?"),
        ];
        var random = new Random(42);
        var stack = new List<StackFrame>(8);
        var counts = new Dictionary<string, int>(StringComparer.Ordinal);
        for (var i = 0; i < 100_000; i++)
        {
            stack.Clear();
            var depth = random.Next(1, 8);
            for (var d = 0; d < depth; d++) stack.Add(frames[random.Next(frames.Length)]);
            var tag = matcher.Classify(stack);
            counts[tag] = counts.GetValueOrDefault(tag) + 1;
        }

        Assert.Equal(frames.Length, matcher.CachedFrameCount);
        Assert.Equal(frames.Length, matcher.FrameResolutionCount);
        Assert.Equal(100_000, counts.Values.Sum());
        Assert.True(counts.ContainsKey("GC") && counts.ContainsKey(StackTagMatcher.Other));
    }
}
