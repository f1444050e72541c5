using EtwSerializerProfiler.Analyzer.StackTags;

namespace EtwSerializerProfiler.Tests.Analyzer.StackTags;

/// <summary>
/// With dynamic code off, System.Text.Json, DataContractSerializer and Newtonsoft.Json spend their reflection time in
/// the runtime's interpreted invoke (frames as recorded in real traces): it must count as reflection, not as the
/// serializer's own code, while MethodBase.Invoke alone still only claims what nothing else explains.
/// </summary>
public sealed class InterpretedInvokeTagTests
{
    private const string CoreLib = "System.Private.CoreLib";
    private const string Bench = "SerializerBenchmark";

    private static readonly StackTagMatcher s_tags = new(StackTagFile.Parse(SerializerStackTagsGenerator.Generate(
        [new SerializerTagInfo("System.Text.Json", "EtwSerializerProfiler.Benchmark.Serializers.SystemTextJsonSerializer")]), "generated"));

    private static string Classify(params (string Module, string Method)[] leafFirst) =>
        s_tags.Classify(leafFirst.Select(f => new StackFrame(f.Module, f.Method)).ToList());

    [Fact]
    public void The_interpreted_invoke_stub_is_reflection_even_under_the_serializers_frame()
    {
        Assert.Equal(@"Reflection\" + SerializerStackTagsGenerator.InterpretedInvokeTag, Classify(
            (CoreLib, "System.Reflection.MethodBaseInvoker.InterpretedInvoke_Method(class System.Object,native int*)"),
            (CoreLib, "System.Reflection.MethodBaseInvoker.InvokeWithOneArg(class System.Object,value class System.Reflection.BindingFlags,class System.Reflection.Binder,class System.Object[],class System.Globalization.CultureInfo)"),
            (CoreLib, "System.Reflection.RuntimeMethodInfo.Invoke(class System.Object,value class System.Reflection.BindingFlags,class System.Reflection.Binder,class System.Object[],class System.Globalization.CultureInfo)"),
            ("System.Text.Json", "System.Text.Json.Serialization.Metadata.ReflectionMemberAccessor+<>c__DisplayClass4_0`1[System.__Canon].<CreatePropertySetter>b__0(class System.Object,!0)"),
            (Bench, "EtwSerializerProfiler.Benchmark.Serializers.SystemTextJsonSerializer.Deserialize(class System.Type,class System.IO.Stream)")));

        Assert.Equal(@"Reflection\" + SerializerStackTagsGenerator.InterpretedInvokeTag, Classify(
            (CoreLib, "System.Reflection.MethodBaseInvoker.InterpretedInvoke_Constructor(class System.Object,native int*)"),
            (CoreLib, "System.Reflection.RuntimeConstructorInfo.Invoke(value class System.Reflection.BindingFlags,class System.Reflection.Binder,class System.Object[],class System.Globalization.CultureInfo)"),
            (Bench, "EtwSerializerProfiler.Benchmark.Serializers.SystemTextJsonSerializer.Deserialize(class System.Type,class System.IO.Stream)")));
    }

    [Fact]
    public void The_emitted_invoke_stub_is_reflection_and_the_setter_it_calls_is_not()
    {
        // With dynamic code on, an emitted stub replaces the interpreted invoke: time in the stub is the invoke's
        // overhead (reflection); time in the setter it calls belongs to the setter, whose caller's tag it keeps.
        const string Setter = "EtwSerializerProfiler.Benchmark.Data.Book.set_Title(class System.String)";
        (string, string)[] Stub =
        [
            ("?", "InvokeStub_Book.set_Title(class System.Object,class System.Object,native int*)"),
            (CoreLib, "System.Reflection.RuntimeMethodInfo.Invoke(class System.Object,value class System.Reflection.BindingFlags,class System.Reflection.Binder,class System.Object[],class System.Globalization.CultureInfo)"),
            (Bench, "EtwSerializerProfiler.Benchmark.Serializers.SystemTextJsonSerializer.Deserialize(class System.Type,class System.IO.Stream)"),
        ];
        Assert.Equal(@"Reflection\Invoke", Classify(Stub));
        Assert.Equal(@"Deserialize\System.Text.Json", Classify([(Bench, Setter), .. Stub]));
    }
}
