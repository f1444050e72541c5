namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// The independent truth's owner rule on stacks as perf prints them with the runtime's perf map (lines copied from a
/// recording): it must say what docs/analyzer.md's rule says, or the truth test compares two rules.
/// </summary>
public sealed class PerfMapReflectionTruthRuleTests
{
    private const string Invoked = "7f38283ad783 string [System.Private.CoreLib] System.Number::UInt32ToDecStr_NoSmallNumberCheck(uint32)[OptimizedTier1] (/tmp/perf-30378.map)";
    private const string Stub = "7f3824e36770 object [System.Private.CoreLib] dynamicClass::InvokeStub_XmlSerializationWriterBookShelf.Write4_BookShelf(object,System.Span`1 /* MT: 0x7f3824d4abb8 */<object>)[Optimized] (/tmp/perf-30378.map)";
    private const string Xml = "7f38283ba07c instance void [System.Private.Xml] System.Xml.Serialization.TempAssembly::InvokeWriter(class System.Xml.Serialization.XmlMapping,class System.Xml.XmlWriter,object)[OptimizedTier1] (/tmp/perf-30378.map)";
    private const string TypeQuery = "7f3827e79735 instance class System.Type[] [System.Private.CoreLib] System.RuntimeType::GetGenericArguments()[OptimizedTier1] (/tmp/perf-30378.map)";
    private const string ListAdd = "7f3827e70000 instance void [System.Private.CoreLib] System.Collections.Generic.List`1[System.__Canon]::AddWithResize(!0)[OptimizedTier1] (/tmp/perf-30378.map)";
    private const string Native = "3e8511 [unknown] (/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.12/libcoreclr.so)";

    [Fact]
    public void A_core_library_method_an_invoke_stub_called_directly_owns_the_sample()
    {
        Assert.Equal((false, false), PerfMapReflectionTruth.Owner([Invoked, Stub, Xml]));
        Assert.Equal((false, false), PerfMapReflectionTruth.Owner([Native, Invoked, Stub, Xml]));
    }

    [Fact]
    public void The_stub_itself_and_reflection_under_it_are_reflection()
    {
        Assert.Equal((true, false), PerfMapReflectionTruth.Owner([Stub, Xml]));
        Assert.Equal((true, false), PerfMapReflectionTruth.Owner([TypeQuery, Stub, Xml]));
    }

    [Fact]
    public void Core_library_work_for_reflection_is_reflection_and_for_code_is_codes()
    {
        Assert.Equal((true, false), PerfMapReflectionTruth.Owner([ListAdd, TypeQuery, Xml]));
        Assert.Equal((false, false), PerfMapReflectionTruth.Owner([ListAdd, Xml]));
    }
}
