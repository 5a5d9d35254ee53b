//! Run-time CPU dispatch: the accelerated sweep and the k-means++ kernels
//! are compiled three times (AVX-512, AVX2+FMA, portable) and the copy the
//! running CPU supports is chosen when called, so one portable binary (a
//! wheel, a crate built without `target-cpu`) still runs the wide kernels.
//! The kernels' results never depend on which copy runs (see each kernel's
//! documentation for why).

/// Whether [`multiversion!`] runs the AVX-512 copy of its kernels here.
#[cfg(target_arch = "x86_64")]
pub(crate) fn avx512_kernels() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma")
}

/// `multiversion!(body, dispatch, (args) -> ret)` defines `dispatch`, which
/// runs `body` (generic over one [`crate::data::Scalar`] `T`) compiled for
/// the widest vector set this CPU has; with `plain` before the arguments,
/// `body` is not generic.
macro_rules! multiversion {
    ($generic:ident, $dispatch:ident, ($($arg:ident : $ty:ty),*) -> $ret:ty) => {
        multiversion!(@copies $generic, $dispatch, [<T: $crate::data::Scalar>], ($($arg: $ty),*) -> $ret);
    };
    ($generic:ident, $dispatch:ident, plain ($($arg:ident : $ty:ty),*) -> $ret:ty) => {
        multiversion!(@copies $generic, $dispatch, [], ($($arg: $ty),*) -> $ret);
    };
    (@copies $generic:ident, $dispatch:ident, [$($gen:tt)*], ($($arg:ident : $ty:ty),*) -> $ret:ty) => {
        fn $dispatch $($gen)* ($($arg: $ty),*) -> $ret {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx2,fma")]
                unsafe fn v512 $($gen)* ($($arg: $ty),*) -> $ret {
                    $generic($($arg),*)
                }
                #[target_feature(enable = "avx2,fma")]
                unsafe fn v256 $($gen)* ($($arg: $ty),*) -> $ret {
                    $generic($($arg),*)
                }
                if $crate::simd::avx512_kernels() {
                    // SAFETY: the features were detected on this CPU.
                    return unsafe { v512($($arg),*) };
                }
                if std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
                {
                    // SAFETY: the features were detected on this CPU.
                    return unsafe { v256($($arg),*) };
                }
            }
            $generic($($arg),*)
        }
    };
}

/// Whether `f64::mul_add` compiles to one instruction in the kernels that
/// [`multiversion!`] selects on this CPU.
pub(crate) fn fused_multiply_add() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(target_arch = "aarch64")]
    {
        true
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        false
    }
}
